"""Training and video: ``sc2pool train``/``sc2pool eval`` as functions, and the pictures.

* ``train.py``: PPO over the pool on a StarCraft II task (:func:`~sc2pool.training.train.train`,
  :func:`~sc2pool.training.train.evaluate`), its outputs and the progress it prints.
* ``render.py``: draws a frame from the observation burnysc2 receives (used by the workers'
  ``render()`` and by ``sc2pool replay``); ``video.py`` writes MP4/GIF files;
  ``video_callback.py`` records episodes during training.

Nothing is imported here: the workers import ``render`` without pulling in SB3 or torch.
"""
