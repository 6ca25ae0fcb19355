"""Worker side of sc2pool: the worker process, its environment hosts, and the SC2 bridge.

Nothing in this package imports torch; the trainer side (``sc2pool``) never imports burnysc2.
"""
