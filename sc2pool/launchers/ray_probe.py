"""Can a Ray driver on this machine join the cluster at ADDRESS? Run as a child of the trainer.

    python -m sc2pool.launchers.ray_probe HOST:PORT

``ray.init(address=...)`` can block for minutes when the cluster answers on its port but cannot be
joined from here (its GCS accepts connections and never answers; its nodes advertise an address
this machine cannot use; no node of the cluster runs here), and part of that wait is in Ray's C++
code, where the trainer's Ctrl-C is not seen until the call returns. So
:class:`~sc2pool.launchers.ray_launcher.RayLauncher` first lets this program connect, in a process
it can kill at its deadline or on Ctrl-C, and connects itself only once this one could.

It reports on stdout, one JSON object per line, as it gets there:

* ``{"event": "gcs", "nodes": [{"id", "address", "port", "head", "alive"}, ...],
  "local_raylets": [...], "node_ip": ...}``: the GCS answered; the nodes it advertises, the Ray
  nodes running on this machine (what ``ray.init`` looks for) and this machine's address as Ray
  sees it. Read through Ray's internal GCS client; left out if this Ray has none.
* ``{"event": "connected", "node_ip": ...}``: ``ray.init`` returned (the probe then disconnects).
* ``{"event": "error", "type": ..., "message": ...}``: ``ray.init`` raised.

Ray's own log lines go to stderr, which the launcher keeps out of the user's terminal.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any


def _say(**event: Any) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def _gcs_view(address: str) -> dict[str, Any] | None:
    """What the GCS advertises, through Ray's internal client (None where this Ray has none)."""
    try:
        from ray._private import services
        from ray._raylet import GcsClient  # type: ignore[attr-defined]
    except ImportError:
        return None
    client = GcsClient(address=address)  # blocks (in C++) until the GCS answers
    nodes = []
    for node_id, info in client.get_all_node_info(timeout=10).items():
        nodes.append({
            "id": node_id.hex(),
            "address": str(info.node_manager_address),
            "port": int(info.node_manager_port),
            "head": bool(info.is_head_node),
            "alive": int(info.state) == 0,  # GcsNodeInfo.ALIVE
        })
    return {
        "nodes": nodes,
        "local_raylets": sorted(services.find_node_ids()),
        "node_ip": services.get_node_ip_address(),
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m sc2pool.launchers.ray_probe HOST:PORT\n")
        return 2
    address = args[0]
    import ray

    try:
        view = _gcs_view(address)
    except Exception as exc:  # an older or newer Ray: ray.init below still tells
        logging.getLogger(__name__).debug("no GCS view: %s", exc)
        view = None
    if view is not None:
        _say(event="gcs", **view)
    try:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING, configure_logging=False)
    except Exception as exc:
        _say(event="error", type=type(exc).__name__, message=str(exc).strip()[:2000])
        return 1
    try:
        _say(event="connected", node_ip=ray.util.get_node_ip_address())
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
