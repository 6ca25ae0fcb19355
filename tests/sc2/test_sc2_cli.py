"""``sc2pool train`` / ``sc2pool eval`` as a user runs them (real processes, tiny budgets)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.proctree import ProcessTree

ENV = {k: v for k, v in os.environ.items() if k != "SC2PATH"}


@pytest.fixture
def cli(process_tree: ProcessTree) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``cli(*args)`` runs ``python -m sc2pool *args`` in its own session: a timeout kills its whole
    tree (workers, games), not only the direct child."""

    def run(*args: str, timeout: float = 150) -> subprocess.CompletedProcess[str]:
        return process_tree.run(
            [sys.executable, "-m", "sc2pool", *args], capture_output=True, text=True, timeout=timeout, env=ENV
        )

    return run


@pytest.mark.timeout(240)
def test_train_then_eval(cli: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = cli(
        "train", "--task", "MoveToBeacon", "--workers", "1", "--envs-per-worker", "2", "--timesteps", "256",
        "--engine", "inprocess", "--out", str(out), "--no-progress",
        "--ppo", json.dumps({"n_steps": 64, "batch_size": 64, "n_epochs": 1}),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    assert "learning curve" in r.stdout
    for name in ("model.zip", "learning_curve.csv", "episode_reward.png", "run.json"):
        assert (out / name).is_file(), name
    assert any((out / "tensorboard").rglob("events.out.tfevents*"))
    r = cli("eval", str(out / "model.zip"), "--task", "MoveToBeacon", "--episodes", "2", "--engine", "inprocess")
    assert r.returncode == 0, r.stderr[-3000:]
    assert re.search(r"mean reward: -?\d+(\.\d+)?", r.stdout), r.stdout


@pytest.mark.timeout(120)
def test_eval_scripted_and_bad_arguments(cli: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    r = cli("eval", "--policy", "scripted", "--task", "MoveToBeacon", "--episodes", "2", "--engine", "inprocess")
    assert r.returncode == 0, r.stderr[-3000:]
    mean = float(re.search(r"mean reward: (-?[\d.]+)", r.stdout).group(1))  # type: ignore[union-attr]
    assert mean >= 10, r.stdout
    assert "win rate" not in r.stdout  # a mini-game's end is its time limit, not a result
    r = cli("eval", str(tmp_path / "missing.zip"))
    assert r.returncode == 2 and "no model file" in r.stderr
    r = cli("train", "--task", "MoveToBacon", "--timesteps", "64", "--workers", "1", "--envs-per-worker", "1",
             "--out", str(tmp_path / "bad"), "--no-progress")  # fmt: skip
    assert r.returncode == 1 and "unknown task 'MoveToBacon'" in r.stderr and "MoveToBeacon" in r.stderr


def _read_line_with(
    proc: subprocess.Popen[str], needle: str, timeout: float
) -> tuple[str, list[str], threading.Thread]:
    """The first line of ``proc``'s stdout containing ``needle`` (bounded wait), a list that a
    reader thread keeps filling with the rest of the output (so the pipe never fills up), and that
    thread (it ends at the end of the output)."""
    import queue

    assert proc.stdout is not None
    stream = proc.stdout
    lines: queue.Queue[str] = queue.Queue()
    rest: list[str] = []

    def pump() -> None:
        found = False
        for line in stream:
            if found:
                rest.append(line)
            else:
                lines.put(line)
                found = needle in line
        lines.put("")  # end of output

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        while True:
            line = lines.get(timeout=timeout)
            if needle in line:
                return line, rest, reader
            if not line:
                break
    except queue.Empty:
        pass
    raise AssertionError(f"no line with {needle!r} from the trainer (exit code {proc.poll()})")


def _kill_group(proc: subprocess.Popen[str]) -> None:
    import signal

    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@pytest.mark.timeout(240)
def test_train_with_a_remote_worker_started_from_the_printed_command(tmp_path: Path, process_tree: ProcessTree) -> None:
    """``sc2pool train --bind`` starts its local workers, prints the ``sc2pool worker`` command the
    other machines run, and trains once that worker has joined; the worker exits with the run."""
    import portpicker

    port = portpicker.pick_unused_port()
    out = tmp_path / "run"
    trainer = process_tree.popen(
        [sys.executable, "-m", "sc2pool", "train", "--task", "MoveToBeacon", "--engine", "inprocess",
         "--workers", "2", "--local-workers", "1", "--envs-per-worker", "1", "--bind", f"tcp://127.0.0.1:{port}",
         "--timesteps", "256", "--ppo", json.dumps({"n_steps": 64, "batch_size": 64, "n_epochs": 1}),
         "--no-progress", "--out", str(out), "--on-failure", "restart"],
        stdout=subprocess.PIPE, stderr=(tmp_path / "trainer.err").open("w"), text=True, env=ENV,
    )  # fmt: skip
    worker: subprocess.Popen[str] | None = None
    try:
        found, rest, reader = _read_line_with(trainer, "sc2pool worker --connect", timeout=60)
        line = found.split()
        assert line[:2] == ["sc2pool", "worker"]
        assert line[line.index("--connect") + 1] == f"tcp://127.0.0.1:{port}"
        assert line[line.index("--envs") + 1] == "1" and "--on-game-crash" in line
        worker = process_tree.popen(
            [sys.executable, "-m", "sc2pool", *line[1:], "--log-level", "WARNING"],
            stderr=(tmp_path / "worker.err").open("w"), text=True, env=ENV,
        )
        assert trainer.wait(timeout=150) == 0, (tmp_path / "trainer.err").read_text()[-3000:]
        assert (out / "model.zip").is_file()
        reader.join(timeout=10)
        assert any("trained 256 timesteps" in x for x in rest), rest
        assert worker.wait(timeout=30) == 0, "the remote worker must exit by itself when the run ends"
    finally:
        _kill_group(trainer)
        if worker is not None:
            _kill_group(worker)


@pytest.mark.timeout(60)
def test_remote_options_are_checked(cli: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    r = cli("train", "--local-workers", "1", "--timesteps", "64", "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "go with --bind" in r.stderr
    r = cli("train", "--bind", "tcp://127.0.0.1:5", "--workers", "1", "--local-workers", "2", "--timesteps", "64",
             "--engine", "inprocess", "--out", str(tmp_path / "y"), "--no-progress")  # fmt: skip
    assert r.returncode == 2 and "between 0 and the 1 workers" in r.stderr
    r = cli("train", "--bind", "tcp://0.0.0.0:5", "--workers", "1", "--local-workers", "0", "--timesteps", "64",
             "--out", str(tmp_path / "z"), "--no-progress")  # fmt: skip
    assert r.returncode == 2 and "curve" in r.stderr.lower(), r.stderr
    r = cli("worker", "--connect", "tcp://127.0.0.1:", "--task", "MoveToBeacon")
    assert r.returncode == 1 and "not a usable endpoint" in r.stderr
    r = cli("worker", "--connect", "tcp://127.0.0.1:5", "--env", "CartPole-v1", "--engine", "inprocess")
    assert r.returncode == 1 and "--engine can only be used with --task" in r.stderr


def test_remote_worker_command() -> None:
    import socket

    from sc2pool.training.train import remote_worker_command

    cmd = remote_worker_command("tcp://0.0.0.0:5555", "MoveToBeacon", 2)
    assert cmd == f"sc2pool worker --connect tcp://{socket.gethostname()}:5555 --task MoveToBeacon --envs 2"
    cmd = remote_worker_command(
        "tcp://10.0.0.1:7", "DefeatRoaches", 3, "inprocess", {"scripted": True}, on_failure="restart"
    )
    assert cmd == (
        "sc2pool worker --connect tcp://10.0.0.1:7 --task DefeatRoaches --envs 3 "
        "--task-kwargs '{\"scripted\": true}' --engine inprocess --on-game-crash relaunch"
    )


@pytest.mark.timeout(240)
def test_checkpoints_and_resume(cli: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    """``--checkpoint-every`` keeps a long run's progress on disk; ``--resume`` continues from it,
    counting timesteps on from the checkpoint."""
    from stable_baselines3 import PPO

    out = tmp_path / "run"
    common = ("--task", "MoveToBeacon", "--workers", "1", "--envs-per-worker", "2", "--engine", "inprocess",
              "--no-progress")  # fmt: skip
    r = cli("train", *common, "--timesteps", "256", "--checkpoint-every", "128", "--out", str(out),
             "--ppo", json.dumps({"n_steps": 64, "batch_size": 64, "n_epochs": 1}))  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    saved = sorted(p.name for p in (out / "checkpoints").iterdir())
    assert saved == ["model_128_steps.zip", "model_256_steps.zip"], saved
    more = tmp_path / "more"
    r = cli("train", *common, "--timesteps", "128", "--resume", str(out / "checkpoints" / "model_128_steps.zip"),
             "--out", str(more))  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    resumed = PPO.load(more / "model.zip", device="cpu")
    assert resumed.num_timesteps == 256 and resumed.n_steps == 64  # the checkpoint's own settings
    r = cli("train", *common, "--timesteps", "64", "--resume", str(tmp_path / "missing.zip"), "--out", str(more))
    assert r.returncode == 2 and "no model file to resume from" in r.stderr
    # --ppo changes the settings it names (tests/sc2/test_sc2_train_melee.py); a setting PPO lacks is refused
    r = cli("train", *common, "--timesteps", "64", "--resume", str(more / "model.zip"), "--ppo", '{"n_stepz": 8}',
            "--out", str(more))
    assert r.returncode == 2 and "unknown PPO settings ['n_stepz']" in r.stderr


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("signame", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_ctrl_c_saves_the_model_so_far_and_leaves_nothing_behind(
    tmp_path: Path, process_tree: ProcessTree, signame: str, code: int
) -> None:
    """Ctrl-C (or SIGTERM, as a batch system stops a job) during ``sc2pool train``: the model
    learnt so far is saved with the curve and the plot, the command exits with 130 (143), and
    every worker and game process goes with it."""
    import signal
    import time

    import psutil
    from helpers.interrupt import python_module, sigint_ignored
    from sc2_helpers import wait_gone

    out = tmp_path / "run"
    with sigint_ignored():  # as a backgrounded run of the suite inherits it; the trainer must not
        trainer = process_tree.popen(
            [*python_module("sc2pool"), "train", "--task", "MoveToBeacon", "--workers", "2",
             "--envs-per-worker", "1", "--timesteps", "1000000", "--checkpoint-every", "128", "--no-progress",
             "--out", str(out), "--ppo", json.dumps({"n_steps": 64, "batch_size": 64, "n_epochs": 1})],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not (out / "checkpoints").is_dir() or not any((out / "checkpoints").iterdir()):
            assert trainer.poll() is None and time.monotonic() < deadline, "training did not start"
            time.sleep(0.1)
        children = [p.pid for p in psutil.Process(trainer.pid).children(recursive=True)]
        assert len(children) >= 4, children  # 2 workers, a game process each
        trainer.send_signal(getattr(signal, signame))
        stdout, stderr = trainer.communicate(timeout=60)
        assert trainer.returncode == code, stderr[-3000:]
        assert "interrupted (Ctrl-C or SIGTERM) after" in stdout and (out / "model.zip").is_file()
        assert (out / "episode_reward.png").is_file() and (out / "learning_curve.csv").is_file()
        assert wait_gone(children) == [], "workers and games must exit with the trainer"
    finally:
        _kill_group(trainer)


@pytest.mark.timeout(240)
def test_train_prints_progress_lines_as_it_goes_when_stdout_is_not_a_terminal(
    tmp_path: Path, process_tree: ProcessTree
) -> None:
    """Output redirected to a file or a pipe: SB3's bar would draw only at the end, so ``train``
    prints a plain line every 10% of the run (timesteps, episodes, mean reward, steps/s), each
    as it happens."""
    err_file = tmp_path / "stderr.txt"
    with err_file.open("w") as err:  # a file, not a pipe: nothing blocks while stdout is read line by line
        trainer = process_tree.popen(
            [sys.executable, "-m", "sc2pool", "train", "--task", "MoveToBeacon", "--workers", "1",
             "--envs-per-worker", "2", "--timesteps", "1280", "--engine", "inprocess", "--out", str(tmp_path / "run"),
             "--ppo", json.dumps({"n_steps": 64, "batch_size": 64, "n_epochs": 1})],
            stdout=subprocess.PIPE, stderr=err, text=True, env=ENV,
        )  # fmt: skip
    try:
        assert trainer.stdout is not None
        first = trainer.stdout.readline()  # returns when the first line is flushed
        running_at_first_line = trainer.poll() is None
        rest, _ = trainer.communicate(timeout=180)
    finally:
        _kill_group(trainer)
    assert trainer.returncode == 0, err_file.read_text()[-3000:]
    lines = [ln for ln in (first + rest).splitlines() if ln.startswith("progress")]
    assert first.startswith("progress") and running_at_first_line, "the first progress line came only at the end"
    pattern = r"progress +(\d+)%  (\d+)/1280 timesteps  (\d+) episodes  mean reward (-|-?[\d.]+)  \d+ steps/s"
    parsed = [re.fullmatch(pattern, ln) for ln in lines]
    assert all(parsed), lines
    pcts = [int(m.group(1)) for m in parsed if m]
    assert pcts == list(range(10, 101, 10)), lines
    steps = [int(m.group(2)) for m in parsed if m]
    assert steps == sorted(steps) and steps[-1] >= 1280


def test_help_shows_every_default() -> None:
    """``--help`` of train and eval states the value of every option that has one."""
    from sc2pool import cli

    def help_of(command: str) -> str:
        sub = cli.build_parser()._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
        return " ".join(sub.format_help().split())  # as one line: argparse wraps at the terminal width

    train = help_of("train")
    for option, default in (("--workers WORKERS", 4), ("--envs-per-worker ENVS_PER_WORKER", 2), ("--seed SEED", 0),
                            ("--timesteps TIMESTEPS", 100000), ("--render-size PX", 256), ("--join-timeout S", 600.0),
                            ("--heartbeat-timeout S", 5.0)):
        assert re.search(rf"{option} [^-]*\(default: {default}\)", train), (option, train)
    evaluate = help_of("eval")
    for option, default in (("--workers WORKERS", 1), ("--seed SEED", 12345), ("--episodes EPISODES", 10)):
        assert re.search(rf"{option} [^-]*\(default: {default}\)", evaluate), (option, evaluate)
    # and the parsed values are those defaults, not a None resolved later
    args = cli.build_parser().parse_args(["train"])
    assert (args.workers, args.envs_per_worker, args.seed, args.timesteps) == (4, 2, 0, 100000)


def test_heartbeat_timeout_reaches_the_pool_and_a_too_short_one_is_refused(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--heartbeat-timeout`` (a run sharing a busy machine) becomes the pool's ``Timeouts.heartbeat``;
    one not above the heartbeat interval is an error naming the option, before anything starts."""
    from sc2pool import cli
    from sc2pool.training import train as training

    class Started(Exception):
        pass

    seen = {}

    def fake_train(**kwargs: object) -> None:
        seen.update(kwargs)
        raise Started

    monkeypatch.setattr(training, "train", fake_train)
    with pytest.raises(Started):
        cli.main(["train", "--task", "MoveToBeacon", "--heartbeat-timeout", "60"])
    pool_kwargs = seen["pool_kwargs"]
    assert isinstance(pool_kwargs, dict) and pool_kwargs["timeouts"].heartbeat == 60.0
    assert cli.main(["train", "--task", "MoveToBeacon", "--heartbeat-timeout", "0.5"]) == 2
    assert "--heartbeat-timeout" in capsys.readouterr().err
    # and the same for eval, whose pool meets the same busy machine
    seen.clear()

    def fake_evaluate(*args: object, **kwargs: object) -> None:
        seen.update(kwargs)
        raise Started

    monkeypatch.setattr(training, "evaluate", fake_evaluate)
    with pytest.raises(Started):
        cli.main(["eval", "--policy", "random", "--task", "MoveToBeacon", "--heartbeat-timeout", "45"])
    pool_kwargs = seen["pool_kwargs"]
    assert isinstance(pool_kwargs, dict) and pool_kwargs["timeouts"].heartbeat == 45.0
    assert cli.main(["eval", "--policy", "random", "--task", "MoveToBeacon", "--heartbeat-timeout", "0.5"]) == 2
    assert "sc2pool eval: --heartbeat-timeout" in capsys.readouterr().err
