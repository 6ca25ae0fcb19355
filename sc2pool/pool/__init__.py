"""The pool and its wire: what runs in the trainer's process, and what crosses the socket.

* ``vec_env.py``: :class:`ZmqVecEnv`, the ``VecEnv`` SB3 talks to (also ``from sc2pool import
  ZmqVecEnv``); ``planning.py`` decides which worker hosts which envs (a pure function);
  ``affinity.py`` pins local workers to cores.
* The wire, in three layers shared with the worker side (``workers/``): ``codec.py`` values
  (msgpack and raw arrays), ``wire.py`` the typed messages (the only module that reads or writes a
  header key), ``protocol.py`` the ZeroMQ transport; ``spaces.py`` carries gymnasium spaces and
  the observation/action array layouts; ``security.py`` CurveZMQ keys and the authenticator.

The broker behind ``ZmqVecEnv`` (routing, admission, liveness, restarts) is :mod:`sc2pool.broker`;
local workers are started by :mod:`sc2pool.launchers.local`. Nothing is imported here, so the
worker side can import the wire without pulling in SB3 or torch.
"""
