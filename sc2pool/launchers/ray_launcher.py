"""Remote workers placed by Ray: one actor per worker, over a placement group.

Ray is the control plane only. Each actor (``_WorkerActor``) reserves ``cpus_per_worker`` CPUs in
one bundle of a placement group (``SPREAD`` by default, so the games spread over the nodes where
the CPUs are) and starts the ordinary worker program as a child process on its node; the worker
connects back to the trainer's broker over tcp with CurveZMQ keys that reached it as an actor
argument (Ray's object store), then its stdin. Observations never touch Ray.

Restarts: an actor whose worker ended (crash, a node or raylet lost, the broker dropped it as
hung) is replaced in the same bundle; Ray re-places a lost node's bundles on the nodes left, if
they have the CPUs. The replacement joins like any replacement worker and the affected episodes
end truncated (``ZmqVecEnv(failure=FailurePolicy("restart"))``).

No orphans: ``close()`` lets workers exit on the broker's CLOSE, then stops and kills every actor
and removes the placement group; actors are owned by the trainer's Ray driver, so Ray kills them
when the trainer dies, and a worker gets SIGTERM when its actor process dies.

Ray is an optional extra (``pip install 'sc2pool[ray]'``); this module imports it only when a
:class:`RayLauncher` is prepared.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from sc2pool.errors import ClusterResourcesError, ClusterUnavailableError, LauncherError
from sc2pool.launchers.base import Launcher, LaunchPlan, WorkerRecipe, _die_with_parent, describe_exit_code

log = logging.getLogger("sc2pool.launchers.ray")


class _WorkerActor:
    """Runs one worker program on its node (a threaded actor: ``stop`` works while ``run`` waits)."""

    def __init__(self) -> None:
        self._proc: Any = None

    def run(self, recipe: WorkerRecipe) -> int:
        """Start the worker and wait for it; returns its exit code."""
        from sc2pool.launchers.base import start_worker_process

        self._proc = start_worker_process(recipe)
        return int(self._proc.wait())

    def stop(self, grace: float) -> int | None:
        from sc2pool.launchers.base import stop_process_group

        return None if self._proc is None else stop_process_group(self._proc, grace)

    def node(self) -> str:
        return socket.gethostname()


@dataclass(eq=False)
class _Slot:
    index: int
    name: str
    actor: Any
    ref: Any
    generation: int = 0
    ended: int = 0  # how many of this position's workers ended while the pool ran


class RayLauncher(Launcher):
    """Start a pool's remote workers as Ray actors::

        ZmqVecEnv(env="CartPole-v1", n_envs=8,
                  remote=RemoteWorkers(launcher=RayLauncher("10.0.0.1:6379", n_workers=4, cpus_per_worker=2)),
                  failure=FailurePolicy("restart"))

    :param address: the Ray cluster's GCS address (``HOST:PORT``), or ``"auto"``; ignored if this
        process already called ``ray.init()``.
    :param n_workers: how many worker actors (the pool's envs are split evenly over them).
    :param cpus_per_worker: CPUs each worker reserves (its games run on them).
    :param strategy: the placement group strategy (``SPREAD``, ``PACK``, ``STRICT_SPREAD``...).
    :param bind_host: the address the broker listens on; default: this node's Ray address.
    :param connect_timeout: seconds to join the cluster (``sc2pool train --cluster-timeout``) before
        :class:`ClusterUnavailableError`, which names the addresses the cluster advertised.
    :param placement_timeout: seconds for the placement group before :class:`ClusterResourcesError`.
    """

    def __init__(
        self,
        address: str = "auto",
        *,
        n_workers: int,
        cpus_per_worker: float = 1.0,
        strategy: str = "SPREAD",
        bind_host: str | None = None,
        connect_timeout: float = 30.0,
        placement_timeout: float = 60.0,
    ) -> None:
        if n_workers < 1:
            raise ValueError(f"n_workers must be >= 1, got {n_workers}")
        if cpus_per_worker <= 0:
            raise ValueError(f"cpus_per_worker must be > 0, got {cpus_per_worker}")
        self.address = address
        self.n_workers = n_workers
        self.cpus_per_worker = cpus_per_worker
        self.strategy = strategy
        self.bind_host = bind_host
        self.connect_timeout = connect_timeout
        self.placement_timeout = placement_timeout
        self._ray: Any = None
        self._owns_init = False
        self._pg: Any = None
        self._actor_cls: Any = None
        self._plan: LaunchPlan | None = None
        self._slots: list[_Slot] = []
        self._closed = False

    # ------------------------------------------------------------------------------ set-up
    def prepare(self) -> None:
        try:
            import ray
        except ImportError:
            raise ClusterUnavailableError(
                "RayLauncher needs Ray, which is not installed: pip install 'sc2pool[ray]'"
            ) from None
        self._ray = ray
        if not ray.is_initialized():
            deadline = time.monotonic() + self.connect_timeout
            self._check_reachable(deadline)
            self._probe(deadline)  # joined from a child first: bounded, and Ctrl-C is seen at once
            try:
                ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING,
                         configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ClusterUnavailableError(f"cannot connect to the Ray cluster at {self.address}: {exc}") from exc
            self._owns_init = True
        try:
            self._reserve()
        except BaseException:
            self.close(0.0)
            raise
        self._actor_cls = ray.remote(_WorkerActor)

    def _check_reachable(self, deadline: float) -> None:
        """Fail fast, with the reason, when nothing listens at ``HOST:PORT``."""
        if self.address in ("auto", "local") or "://" in self.address:
            return
        host, _, port = self.address.rpartition(":")
        if not host or not port.isdigit():
            raise ClusterUnavailableError(f"Ray address {self.address!r} is not HOST:PORT (e.g. 10.0.0.1:6379)")
        try:
            socket.create_connection((host, int(port)), timeout=max(0.1, deadline - time.monotonic())).close()
        except OSError as exc:
            raise ClusterUnavailableError(
                f"no Ray cluster reachable at {self.address}: {exc} (start one with `ray start --head`, "
                "or pass the GCS address it printed)"
            ) from None

    def _probe(self, deadline: float) -> None:
        """Join the cluster from a child process (:mod:`sc2pool.launchers.ray_probe`) before this
        process does. ``ray.init`` blocks for minutes, partly in C++ where a Ctrl-C waits until
        the call returns, when the cluster answers on its port but cannot be joined from here;
        the child can be killed at the deadline or on Ctrl-C (KeyboardInterrupt, raised here while
        waiting), and what it saw of the cluster names the problem."""
        if self.address in ("auto", "local"):
            return  # ray.init finds the address itself; nothing to probe ahead of it
        cmd = [sys.executable, "-m", "sc2pool.launchers.ray_probe", self.address]
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            # its own session: a Ctrl-C in the terminal reaches the trainer only, which kills it
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True, preexec_fn=_die_with_parent)
            try:
                while proc.poll() is None and time.monotonic() < deadline:
                    try:
                        proc.wait(timeout=min(0.1, max(0.0, deadline - time.monotonic())))
                    except subprocess.TimeoutExpired:
                        pass
            finally:
                if proc.poll() is None:  # the deadline, or a KeyboardInterrupt on its way up
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    proc.wait()
            out.seek(0)
            err.seek(0)
            events: dict[str, dict[str, Any]] = {}
            for line in out.read().decode(errors="replace").splitlines():
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(event, dict) and isinstance(event.get("event"), str):
                    events[event["event"]] = event
            if proc.returncode == 0 and "connected" in events:
                return
            log.debug("Ray probe of %s ended %s; its stderr:\n%s", self.address,
                      describe_exit_code(proc.returncode), err.read().decode(errors="replace")[-4000:])
        raise ClusterUnavailableError(self._why_unavailable(events))

    def _why_unavailable(self, events: dict[str, dict[str, Any]]) -> str:
        """What the probe saw, said as the problem and its fix."""
        gcs, error = events.get("gcs"), events.get("error")
        failed = (
            f"{error.get('type')}: {str(error.get('message', '')).splitlines()[0] if error.get('message') else ''}"
            if error is not None
            else f"no connection within --cluster-timeout / connect_timeout={self.connect_timeout:g} s"
        )
        if gcs is None:
            return (
                f"cannot join the Ray cluster at {self.address}: something accepts connections there but no Ray "
                f"GCS answered ({failed}). Pass the GCS address that `ray start --head` printed (port 6379 by "
                "default) and check that the head is up"
            )
        nodes = [n for n in gcs.get("nodes", []) if isinstance(n, dict)]
        shown = ", ".join(
            f"{n.get('address')}:{n.get('port')}" + (" (head)" if n.get("head") else "") + ("" if n.get("alive") else " (dead)")
            for n in nodes
        ) or "no node at all"
        alive = {n.get("id") for n in nodes if n.get("alive")}
        here = alive & set(gcs.get("local_raylets", []))
        if not alive:
            reason = "none of them is alive"
        elif not here:
            reason = (f"none of them runs on this machine (address {gcs.get('node_ip')} as Ray sees it), and a Ray "
                      "driver such as the trainer must run on a node of the cluster")
        else:
            reason = "the one on this machine does not answer at that address"
        return (
            f"cannot join the Ray cluster at {self.address}: its GCS answers and advertises its nodes at {shown}, "
            f"but {reason} ({failed}). Run the trainer on a node of the cluster (on this machine: `ray start "
            f"--address={self.address}` first); start a head that has several addresses with the one the trainer "
            "and the other nodes reach (`ray start --head --node-ip-address=ADDR`); on a single machine, start Ray "
            "and the trainer with the same RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER setting"
        )

    def _reserve(self) -> None:
        ray = self._ray
        from ray.util.placement_group import placement_group, remove_placement_group

        need = self.n_workers * self.cpus_per_worker
        total = float(ray.cluster_resources().get("CPU", 0.0))
        free = float(ray.available_resources().get("CPU", 0.0))
        nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        what = f"{self.n_workers} workers x {self.cpus_per_worker:g} CPUs = {need:g} CPUs"
        if total < need:
            raise ClusterResourcesError(
                f"{what} needed, but the Ray cluster has {total:g} CPUs on {nodes} node(s) "
                f"({free:g} free): add nodes, or ask for fewer workers or CPUs per worker"
            )
        pg = placement_group([{"CPU": self.cpus_per_worker}] * self.n_workers, strategy=self.strategy)
        ready, _ = ray.wait([pg.ready()], timeout=self.placement_timeout)
        if not ready:
            remove_placement_group(pg)
            raise ClusterResourcesError(
                f"could not reserve {what} (strategy {self.strategy}) within placement_timeout="
                f"{self.placement_timeout:g} s; the cluster has {total:g} CPUs on {nodes} node(s), "
                f"{free:g} free when asked (other jobs may hold them)"
            )
        self._pg = pg

    def bind_endpoint(self) -> str:
        host = self.bind_host or self._ray.util.get_node_ip_address()
        return f"tcp://{host}:0"

    # ------------------------------------------------------------------------------ workers
    def start(self, plan: LaunchPlan) -> None:
        if len(plan.worker_envs) != self.n_workers:
            raise ValueError(f"plan for {len(plan.worker_envs)} workers, launcher for {self.n_workers}")
        self._plan = plan
        for i in range(self.n_workers):
            self._slots.append(self._launch(i, 0))
        log.info("started %d Ray worker actors in placement group %s", self.n_workers, self._pg.id.hex()[:12])

    def _launch(self, index: int, generation: int) -> _Slot:
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        assert self._plan is not None
        name = f"ray-{index}" if generation == 0 else f"ray-{index}.{generation}"
        recipe = self._plan.recipe(index, name)
        actor = self._actor_cls.options(
            num_cpus=self.cpus_per_worker,
            max_concurrency=2,
            max_restarts=0,  # the pool restarts workers itself, with fresh keys and a fresh name
            scheduling_strategy=PlacementGroupSchedulingStrategy(
                placement_group=self._pg, placement_group_bundle_index=index
            ),
        ).remote()
        return _Slot(index, name, actor, actor.run.remote(recipe), generation)

    def poll(self) -> None:
        if self._closed or not self._slots or self._plan is None:
            return
        ray = self._ray
        refs = [s.ref for s in self._slots]
        done, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        if not done:
            return
        ended = {id(r) for r in done}
        for pos, slot in enumerate(self._slots):
            if id(slot.ref) not in ended:
                continue
            why = self._why_ended(slot)
            if not self._plan.restart:
                raise LauncherError(f"Ray worker {slot.name} {why}")
            slot.ended += 1
            limit = self._plan.max_restarts
            if limit is not None and slot.ended > limit + 1:
                raise LauncherError(
                    f"Ray worker position {slot.index} ended {slot.ended} times (max_restarts={limit}); "
                    f"last: {slot.name} {why}"
                )
            log.warning("Ray worker %s %s; starting a replacement", slot.name, why)
            self._kill(slot)
            fresh = self._launch(slot.index, slot.generation + 1)
            fresh.ended = slot.ended
            self._slots[pos] = fresh

    def _why_ended(self, slot: _Slot) -> str:
        ray = self._ray
        try:
            return describe_exit_code(ray.get(slot.ref, timeout=0))
        except ray.exceptions.RayActorError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return f"lost its Ray actor (node or actor died: {first[:200]})"
        except Exception as exc:  # a task error: report it, still replaced
            return f"failed in its Ray actor: {type(exc).__name__}: {str(exc)[:200]}"

    def worker_failed(self, name: str) -> None:
        for slot in self._slots:
            if slot.name == name:
                self._kill(slot)  # its run() ends; poll() replaces it
                return

    def _kill(self, slot: _Slot) -> None:
        try:
            self._ray.kill(slot.actor, no_restart=True)
        except Exception as exc:  # already gone
            log.debug("ray.kill(%s): %s", slot.name, exc)

    def owns(self, name: str) -> bool:
        return any(s.name == name for s in self._slots)

    def placement(self) -> dict[str, str]:
        """Where the workers' bundles are: worker name -> Ray node id (hex)."""
        if self._pg is None:
            return {}
        table = self._ray.util.placement_group_table(self._pg)
        nodes = table.get("bundles_to_node_id", {})
        return {s.name: str(nodes.get(s.index, "")) for s in self._slots}

    def describe(self) -> list[str]:
        if not self._slots:
            return []
        pending = [s.name for s in self._slots]
        return [
            f"  Ray: {len(pending)} worker actor(s) started in a placement group of {self.n_workers} x "
            f"{self.cpus_per_worker:g} CPUs; a worker that never joins usually cannot import sc2pool on its "
            f"node or cannot reach {self._plan.endpoint if self._plan else 'the broker'} (see the Ray worker logs)"
        ]

    # ------------------------------------------------------------------------------ close
    def close(self, grace: float = 3.0) -> None:
        if self._closed:
            return
        self._closed = True
        ray = self._ray
        if ray is None:
            return
        try:
            if self._slots and ray.is_initialized():
                # workers exit on the broker's CLOSE: give them the grace, then stop what is left
                refs = [s.ref for s in self._slots]
                _, left = ray.wait(refs, num_returns=len(refs), timeout=max(grace, 0.0))
                waiting = {id(r) for r in left}
                stops = [s.actor.stop.remote(1.0) for s in self._slots if id(s.ref) in waiting]
                if stops:
                    ray.wait(stops, num_returns=len(stops), timeout=8.0)
                for s in self._slots:
                    self._kill(s)
            if self._pg is not None and ray.is_initialized():
                from ray.util.placement_group import remove_placement_group

                remove_placement_group(self._pg)
        finally:
            self._slots = []
            self._pg = None
            if self._owns_init:
                ray.shutdown()
                self._owns_init = False

