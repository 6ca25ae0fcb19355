"""Play MoveToBeacon with an unmodified burnysc2 ``run_game`` that saves its replay through
``save_replay_as``, and keep every observation the bot received.

Usage: ``SC2PATH=<fake install> python replay_game_script.py REPLAY OBSERVATIONS [SEED]``. The bot walks
its marine to the beacon; OBSERVATIONS gets a msgpack list of the serialized ``ResponseObservation``
of every step (``bot.state.response_observation``). ``run_game`` installs a SIGINT handler, so it
must run in a main thread: hence a script run in a subprocess.
"""

from __future__ import annotations

import sys
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).parent))

from conformance_bots import BeaconBot  # noqa: E402
from engine_harness import quiet_loguru  # noqa: E402


class KeepingBeaconBot(BeaconBot):
    def __init__(self) -> None:
        super().__init__()
        self.kept: list[bytes] = []

    async def on_step(self, iteration: int) -> None:
        self.kept.append(self.state.response_observation.SerializeToString())
        await super().on_step(iteration)


def main(replay: str, observations: str, seed: int) -> int:
    quiet_loguru("ERROR")
    from sc2 import maps
    from sc2.data import Race
    from sc2.main import run_game
    from sc2.player import Bot

    bot = KeepingBeaconBot()
    run_game(maps.get("MoveToBeacon"), [Bot(Race.Terran, bot)], realtime=False, save_replay_as=replay,
             random_seed=seed, game_time_limit=20)
    Path(observations).write_bytes(msgpack.packb(bot.kept))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 7))
