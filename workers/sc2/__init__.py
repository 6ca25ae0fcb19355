"""StarCraft II games as pool environments: the burnysc2 bridge, game launching and tasks.

Worker-side only (imports burnysc2, never torch). Build hosts with
``HostSpec("workers.sc2.host:make_host", {"task": "MoveToBeacon"})``.
"""
