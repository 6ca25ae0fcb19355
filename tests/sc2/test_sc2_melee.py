"""The Melee task (``workers/sc2/tasks/melee.py``): its options and spaces, and on the embedded
engine its decoder's actions doing what they say, no-ops for what cannot be done, the episode's
end and the reward. Games are short (a time limit of a few game minutes, or the scripted baseline
against the VeryEasy Computer, which it beats in about 10 game minutes, ~15 s of wall time)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from workers.sc2.host import SC2EnvHost
from workers.sc2.tasks.base import LOOPS_PER_SECOND, Opponent, TaskError, make_task
from workers.sc2.tasks.melee import ACTIONS, FEATURES, LADDER_2018_S3, MINIMAP_CHANNELS, Melee

A = {name: i for i, name in enumerate(ACTIONS)}


@pytest.fixture(autouse=True)
def _embedded_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SC2PATH", raising=False)


# -- options and spaces (no game) -----------------------------------------------------------------
def test_defaults_are_terran_against_easy_terran_on_the_ladder_maps() -> None:
    task = make_task("Melee")
    assert isinstance(task, Melee)
    setup = task.game_setup()
    assert setup.race == "terran"
    assert setup.opponents == (Opponent("terran", "easy", "randombuild"),)
    assert task.maps == LADDER_2018_S3
    assert setup.time_limit_s == 1200.0 and setup.game_step == 32
    # every ladder map is drawn, from the seed (so seeded runs repeat)
    drawn = {task.episode_setup(seed).map_name for seed in range(20)}
    assert drawn == {f"{m}.SC2Map" for m in LADDER_2018_S3}
    assert task.episode_setup(3) == task.episode_setup(3)


def test_spaces_are_a_dict_of_features_and_minimap_and_a_discrete_action() -> None:
    task = make_task("Melee", {"minimap": 24})
    obs = task.observation_space
    assert isinstance(obs, gym.spaces.Dict) and set(obs.spaces) == {"features", "minimap"}
    feats, mini = obs["features"], obs["minimap"]
    assert isinstance(feats, gym.spaces.Box) and feats.shape == (len(FEATURES),) and feats.dtype == np.float32
    assert isinstance(mini, gym.spaces.Box) and mini.shape == (len(MINIMAP_CHANNELS), 24, 24) and mini.dtype == np.uint8
    assert task.action_space == gym.spaces.Discrete(len(ACTIONS))
    assert ACTIONS[0] == "no_op" and {"attack", "defend", "retreat", "scout", "expand"} <= set(ACTIONS)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"race": "elf"}, r"expected one of \['terran', 'zerg', 'protoss', 'random'\]"),
        ({"race": "elf"}, "unknown race"),
        ({"opponent": "selfish"}, "opponent must be"),
        ({"opponent": "bob"}, "opponent must be"),
        ({"opponent": {"difficulty": "impossible"}}, "unknown opponent difficulty"),
        ({"opponent": {"level": "easy"}}, "unknown opponent keys"),
        ({"map": []}, "map must be"),
        ({"opponent": []}, "non-empty list"),
        ({"opponent": ["self"]}, "holds Computer dicts only"),
        ({"opponent": [{"difficulty": "easy"}, {"difficulty": "hardest"}]}, "unknown opponent difficulty 'hardest'"),
        ({"time_limit_s": 0}, "time_limit_s must be > 0"),
        ({"step_loops": 0}, "step_loops must be"),
        ({"shaping": -1}, "shaping must be >= 0"),
        ({"tie_reward": -2}, "tie_reward must be a number from -1 to 1"),
        ({"tie_reward": "lose"}, "tie_reward must be a number from -1 to 1"),
        ({"tie_reward": "score"}, 'tie_reward must be a number from -1 to 1, "trade", or null'),
        ({"minimap": 4}, "minimap must be"),
    ],
)
def test_bad_options_are_task_errors_naming_the_option(kwargs: dict[str, Any], needle: str) -> None:
    with pytest.raises(TaskError, match=needle):
        make_task("Melee", kwargs)


def test_every_race_and_random_reach_the_setup() -> None:
    for race in ("terran", "zerg", "protoss", "Random"):
        task = make_task("Melee", {"race": race})
        assert isinstance(task, Melee)
        assert task.game_setup().race == race.lower()
    assert make_task("Melee", {"race": "zerg"}).book.larvae  # type: ignore[attr-defined]


def test_options_reach_the_setup() -> None:
    task = make_task("Melee", {"map": ["FractureLE.SC2Map", "AcidPlantLE"], "step_loops": 16, "time_limit_s": 60,
                               "opponent": {"difficulty": "Medium", "build": "rush"}})
    assert {task.episode_setup(s).map_name for s in range(4)} == {"FractureLE.SC2Map", "AcidPlantLE.SC2Map"}
    setup = task.game_setup()
    assert setup.game_step == 16 and setup.time_limit_s == 60
    assert setup.opponents == (Opponent("terran", "medium", "rush"),)


def test_a_list_of_opponents_is_drawn_per_episode_independently_of_the_map() -> None:
    task = make_task("Melee", {"map": ["AcidPlantLE", "BlueshiftLE"],
                               "opponent": [{"difficulty": "easy"}, {"difficulty": "medium", "race": "zerg"}]})
    assert isinstance(task, Melee)
    easy, medium = Opponent("terran", "easy", "randombuild"), Opponent("zerg", "medium", "randombuild")
    assert task.opponents == (easy, medium) and task.game_setup().opponents == (easy,)
    pairs = {(task.episode_setup(s).map_name, task.episode_setup(s).opponents) for s in range(8)}
    # every map meets every opponent (a draw on the same digits of the seed would pair them off)
    assert pairs == {(m, (o,)) for m in ("AcidPlantLE.SC2Map", "BlueshiftLE.SC2Map") for o in (easy, medium)}
    assert medium.label == "zerg/medium/randombuild"


def _result(name: str) -> Any:
    return SimpleNamespace(name=name)


def test_outcome_and_final_reward() -> None:
    task = make_task("Melee", {"time_limit_s": 100, "step_loops": 32})
    limit = int(100 * LOOPS_PER_SECOND)
    at_limit = SimpleNamespace(state=SimpleNamespace(game_loop=limit))
    early = SimpleNamespace(state=SimpleNamespace(game_loop=limit // 2))
    assert task.outcome(at_limit, _result("Victory")) == (True, False)  # type: ignore[arg-type]
    assert task.outcome(early, _result("Defeat")) == (True, False)  # type: ignore[arg-type]
    assert task.outcome(at_limit, _result("Tie")) == (False, True)  # type: ignore[arg-type]
    assert task.outcome(early, _result("Tie")) == (True, False)  # type: ignore[arg-type]  # a tie in play
    assert [task.final_reward(at_limit, _result(r)) for r in ("Victory", "Defeat", "Tie")] == [1.0, -1.0, 0.0]  # type: ignore[arg-type]


# -- on the engine --------------------------------------------------------------------------------
@pytest.fixture
def host(request: pytest.FixtureRequest, run: Any, no_leaks: None) -> Iterator[SC2EnvHost]:
    h = SC2EnvHost(1, task="Melee", task_kwargs=request.param)
    try:
        run(h.start())
        yield h
    finally:
        run(h.close())


def _available(obs: dict[str, np.ndarray]) -> dict[str, bool]:
    first = FEATURES.index("available_no_op")
    return {a: bool(obs["features"][first + i] > 0.5) for i, a in enumerate(ACTIONS)}


class _Driver:
    """Steps env 0 with named actions and keeps the last result."""

    def __init__(self, run: Any, host: SC2EnvHost, seed: int = 3) -> None:
        self.run, self.host = run, host
        ((self.obs, _),) = run(host.reset([0], [seed], [None]))
        self.game = host.games[0]
        self.steps = 0

    @property
    def bot(self) -> Any:
        return self.game.bot

    @property
    def task(self) -> Melee:
        task = self.game.task
        assert isinstance(task, Melee)
        return task

    def step(self, action: str) -> Any:
        (res,) = self.run(self.host.step([A[action]]))
        assert self.host.observation_space.contains(res.obs)
        assert not (res.terminated or res.truncated), res.info
        self.obs = res.obs
        self.steps += 1
        return res

    def until(self, what: str, cond: Any, limit: int = 400) -> None:
        """No-ops until ``cond()`` holds (at most ``limit`` steps)."""
        for _ in range(limit):
            if cond():
                return
            self.step("no_op")
        raise AssertionError(f"{what}: not within {limit} steps (game loop {self.bot.state.game_loop})")

    def when_available(self, action: str) -> Any:
        self.until(f"{action} available", lambda: _available(self.obs)[action])
        done = self.task.actions_done[A[action]]
        res = self.step(action)
        assert self.task.actions_done[A[action]] == done + 1, f"{action} was available but not carried out"
        return res


def _orders(units: Any) -> list[tuple[str, Any]]:
    return [(u.orders[0].ability.id.name, u.orders[0].target) for u in units if u.orders]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("host", [{"map": "AcidPlantLE", "time_limit_s": 900, "opponent": {"difficulty": "veryeasy"}}],
                         indirect=True)
def test_every_macro_action_does_what_it_says_and_impossible_ones_are_no_ops(run: Any, host: SC2EnvHost) -> None:
    from sc2.ids.unit_typeid import UnitTypeId as U
    from sc2.position import Point2

    d = _Driver(run, host)
    bot, task = d.bot, d.task
    avail = _available(d.obs)
    # 50 minerals, no depot, no army: these cannot be carried out and are no-ops
    assert avail["train_worker"] and avail["no_op"]
    assert not any(avail[a] for a in ("build_supply", "build_production", "train_army", "expand", "attack", "defend", "retreat"))
    structures = bot.structures.amount
    for action in ("build_production", "build_supply", "train_army", "expand", "attack", "retreat"):
        d.step(action)
        assert task.actions_done[A[action]] == 0, action
    assert task.mode == "defend"  # an army order without an army changes nothing
    assert bot.structures.amount == structures
    assert not [o for o, _ in _orders(d.bot.workers) if "BUILD" in o]
    assert bot.already_pending(U.SUPPLYDEPOT) == 0 and bot.already_pending(U.BARRACKS) == 0

    # a worker
    workers = d.bot.workers.amount
    d.when_available("train_worker")
    assert d.bot.already_pending(U.SCV) == 1
    d.until("the SCV", lambda: d.bot.workers.amount == workers + 1)

    # a depot, then a barracks, then a refinery: a worker goes to build each, and each stands
    d.when_available("build_supply")
    assert d.bot.already_pending(U.SUPPLYDEPOT) == 1
    d.until("the depot", lambda: d.bot.structures(U.SUPPLYDEPOT).ready.amount == 1)
    d.when_available("build_production")
    assert d.bot.already_pending(U.BARRACKS) == 1
    d.when_available("build_gas")
    assert d.bot.already_pending(U.REFINERY) == 1
    d.until("the refinery filled by housekeeping",
            lambda: any(g.assigned_harvesters >= 3 for g in d.bot.gas_buildings.ready))
    d.until("the barracks", lambda: d.bot.structures(U.BARRACKS).ready.amount == 1)

    # marines, then the army orders
    d.when_available("train_army")
    assert d.bot.already_pending(U.MARINE) >= 1
    d.until("a marine", lambda: d.bot.units(U.MARINE).amount >= 1)
    d.when_available("attack")
    assert task.mode == "attack" and d.obs["features"][FEATURES.index("mode_attack")] == 1.0
    enemy = bot.enemy_start_locations[0]
    orders = _orders(d.bot.units(U.MARINE))
    assert orders and all(o == "ATTACK" and isinstance(t, Point2) and t.distance_to(enemy) < 1 for o, t in orders), orders
    home = d.bot.units(U.MARINE).center
    d.until("the marine on its way", lambda: d.bot.units(U.MARINE).center.distance_to(home) > 15)
    assert task.mode == "attack"  # the standing order lasts
    d.when_available("retreat")
    assert task.mode == "retreat"
    orders = _orders(d.bot.units(U.MARINE))
    assert orders and all(o == "MOVE" and t.distance_to(home) < 10 for o, t in orders), orders
    d.when_available("scout")
    scout = d.bot.units.find_by_tag(task._scout_tag)  # type: ignore[arg-type]
    assert scout is not None and _orders([scout])[0][0] == "MOVE"
    assert _orders([scout])[0][1].distance_to(enemy) < 1

    # an expansion: a worker goes to build a Command Center at the nearest free location
    d.when_available("expand")
    assert d.bot.already_pending(U.COMMANDCENTER) == 1
    builders = [t for o, t in _orders(d.bot.workers) if o == "TERRANBUILD_COMMANDCENTER"]
    assert len(builders) == 1
    nearest = min(bot.expansion_locations_list, key=lambda p: p.distance_to(bot.start_location)
                  if p.distance_to(bot.start_location) > 5 else math.inf)
    assert builders[0].distance_to(nearest) < 4


@pytest.mark.timeout(60)
@pytest.mark.parametrize("host", [{"map": "CatalystLE", "time_limit_s": 20}], indirect=True)
def test_the_time_limit_truncates(run: Any, host: SC2EnvHost) -> None:
    run(host.reset([0], [1], [None]))
    steps = []
    while len(steps) < 100:
        (res,) = run(host.step([A["train_worker"]]))
        steps.append(res)
        if res.terminated or res.truncated:
            break
    assert res.truncated and not res.terminated
    assert res.info["game_result"] == "Tie" and res.reward == 0.0
    # the first decision (one every 32 game loops) past the limit ends it
    loop = res.info["game_loop"]
    assert 20 * LOOPS_PER_SECOND <= loop <= 20 * LOOPS_PER_SECOND + 32 and len(steps) == loop // 32


@pytest.mark.timeout(60)
@pytest.mark.parametrize("host", [{"map": "CatalystLE", "time_limit_s": 20, "tie_reward": -0.5}], indirect=True)
def test_tie_reward_scores_the_time_limit_as_a_terminated_result(run: Any, host: SC2EnvHost) -> None:
    run(host.reset([0], [1], [None]))
    for _ in range(100):
        (res,) = run(host.step([A["train_worker"]]))
        if res.terminated or res.truncated:
            break
    # the same end as test_the_time_limit_truncates, scored: no bootstrapping through it
    assert res.terminated and not res.truncated
    assert res.info["game_result"] == "Tie" and res.reward == -0.5
    assert 20 * LOOPS_PER_SECOND <= res.info["game_loop"] <= 20 * LOOPS_PER_SECOND + 32


def test_a_trade_tie_reward_pays_the_player_that_destroyed_more_value_than_it_lost() -> None:
    task = make_task("Melee", {"tie_reward": "trade"})
    assert isinstance(task, Melee) and task.scores_time_limit
    tie, victory, defeat = (SimpleNamespace(name=n) for n in ("Tie", "Victory", "Defeat"))
    for killed, lost, reward in ((400.0, 150.0, 1.0), (150.0, 400.0, -1.0), (0.0, 0.0, -1.0), (200.0, 200.0, -1.0)):
        task._value_killed, task._value_lost = killed, lost
        assert task.final_reward(None, tie) == reward, (killed, lost)  # type: ignore[arg-type]
        # a decided game keeps its result, whatever was traded
        assert task.final_reward(None, victory) == 1.0 and task.final_reward(None, defeat) == -1.0  # type: ignore[arg-type]


def _scripted_game(run: Any, host: SC2EnvHost, seed: int) -> tuple[list[Any], Melee]:
    run(host.reset([0], [seed], [None]))
    results = []
    for _ in range(3000):
        (res,) = run(host.step([0]))  # the scripted baseline ignores the action
        results.append(res)
        if res.terminated or res.truncated:
            task = host.games[0].task
            assert isinstance(task, Melee)
            return results, task
    raise AssertionError("no end in 3000 steps")


VERY_EASY = {"map": "FractureLE", "opponent": {"difficulty": "veryeasy"}, "scripted": True}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("host", [{**VERY_EASY, "shaping": 0.5}], indirect=True)
def test_scripted_baseline_wins_and_the_victory_terminates_with_shaped_reward(run: Any, host: SC2EnvHost) -> None:
    results, task = _scripted_game(run, host, seed=5)
    last = results[-1]
    assert last.info["game_result"] == "Victory"
    assert last.terminated and not last.truncated
    assert task.actions_done[A["attack"]] >= 1 and task.actions_done[A["train_army"]] >= 10
    # shaping 0.5: every step's reward is half the value traded / 1000, and the victory adds 1
    killed, lost = last.info["value_killed"], last.info["value_lost"]
    assert killed > lost > 0
    total = sum(r.reward for r in results)
    assert total == pytest.approx(1.0 + 0.5 * (killed - lost) / 1000.0)
    assert any(0 < r.reward for r in results[:-1])  # the value destroyed counts as it happens


@pytest.mark.timeout(120)
@pytest.mark.parametrize("host", [{**VERY_EASY, "shaping": 0}], indirect=True)
def test_without_shaping_the_reward_is_the_result_only(run: Any, host: SC2EnvHost) -> None:
    results, _ = _scripted_game(run, host, seed=5)
    last = results[-1]
    assert last.terminated and last.info["game_result"] in ("Victory", "Defeat")
    assert last.info["value_killed"] > 0 and last.info["value_lost"] > 0  # there were fights
    assert all(r.reward == 0.0 for r in results[:-1])
    assert last.reward == (1.0 if last.info["game_result"] == "Victory" else -1.0)



@pytest.mark.timeout(150)
@pytest.mark.parametrize("host", [{**VERY_EASY, "race": "protoss"}], indirect=True)
def test_the_protoss_baseline_warps_in_pylons_gateways_and_zealots_and_wins(run: Any, host: SC2EnvHost) -> None:
    results, task = _scripted_game(run, host, seed=5)
    assert task.book.race == "protoss"
    assert task.actions_done[A["build_supply"]] >= 3 and task.actions_done[A["build_production"]] >= 2
    assert task.actions_done[A["train_army"]] >= 10 and task.actions_done[A["attack"]] >= 1
    assert results[-1].info["game_result"] == "Victory"


@pytest.mark.timeout(150)
@pytest.mark.parametrize("host", [{**VERY_EASY, "race": "zerg"}], indirect=True)
def test_the_zerg_baseline_hatches_overlords_drones_roaches_and_wins(run: Any, host: SC2EnvHost) -> None:
    results, task = _scripted_game(run, host, seed=5)
    assert task.book.race == "zerg"
    # Overlords; a Spawning Pool, a Queen and a Roach Warren at least; Roaches; an attack
    assert task.actions_done[A["build_supply"]] >= 3 and task.actions_done[A["build_production"]] >= 3
    assert task.actions_done[A["train_army_alt"]] >= 10 and task.actions_done[A["attack"]] >= 1
    assert task.actions_done[A["expand"]] == 1 and task.actions_done[A["build_gas"]] >= 1
    last = results[-1]
    assert last.info["game_result"] == "Victory"
    assert last.info["value_killed"] > last.info["value_lost"]


@pytest.mark.timeout(150)
@pytest.mark.parametrize("host", [{"map": "AcidPlantLE", "race": "zerg", "time_limit_s": 900,
                                   "opponent": {"difficulty": "veryeasy"}}], indirect=True)
def test_zerg_macro_actions_hatch_from_larvae_and_build_with_drones(run: Any, host: SC2EnvHost) -> None:
    from sc2.ids.buff_id import BuffId
    from sc2.ids.unit_typeid import UnitTypeId as U

    d = _Driver(run, host)
    bot, task = d.bot, d.task
    avail = _available(d.obs)
    # 50 minerals, 3 larvae, no Spawning Pool: a Drone, nothing else of the economy
    assert avail["train_worker"] and not any(avail[a] for a in ("build_supply", "build_production", "train_army",
                                                                 "train_army_alt", "expand", "attack"))
    feats = dict(zip(FEATURES, d.obs["features"], strict=True))
    # the larva sources (one Hatchery), its larvae waiting, an Overlord's supply
    assert feats["production"] == pytest.approx(1 / 10) and feats["production_idle"] == pytest.approx(3 / 10)
    assert feats["supply_structures"] == pytest.approx(1 / 20)
    for action in ("train_army", "train_army_alt", "build_production"):
        d.step(action)
        assert task.actions_done[A[action]] == 0, action

    # a Drone and an Overlord hatch from larvae
    d.when_available("train_worker")
    assert d.bot.already_pending(U.DRONE) == 1 and d.bot.units(U.EGG).amount == 1
    d.when_available("build_supply")
    assert d.bot.already_pending(U.OVERLORD) == 1
    d.until("the Overlord", lambda: d.bot.units(U.OVERLORD).amount == 2)
    assert d.obs["features"][FEATURES.index("supply_structures")] == pytest.approx(2 / 20)

    # the first production step is a Spawning Pool, built by a Drone on creep; the Drone is
    # consumed, and that is no loss
    d.when_available("build_production")
    d.until("the Spawning Pool placed", lambda: d.bot.structures(U.SPAWNINGPOOL).amount == 1)
    pool = d.bot.structures(U.SPAWNINGPOOL).first
    assert d.bot.has_creep(pool.position)
    assert not d.bot.structures(U.SPAWNINGPOOL).ready and not _available(d.obs)["build_production"]
    d.when_available("build_gas")
    d.until("the Extractor placed", lambda: d.bot.gas_buildings.amount == 1)
    assert task._value_lost == 0.0
    d.until("the Spawning Pool", lambda: d.bot.structures(U.SPAWNINGPOOL).ready.amount == 1, limit=600)

    # then a Queen in the Hatchery's queue; Zerglings from larvae meanwhile
    d.when_available("build_production")
    assert d.bot.already_pending(U.QUEEN) == 1
    d.when_available("train_army")
    assert d.bot.already_pending(U.ZERGLING) >= 1
    d.until("the Zerglings", lambda: d.bot.units(U.ZERGLING).amount >= 2)
    # the Queen injects larvae without being told (housekeeping)
    d.until("the inject", lambda: d.bot.townhalls.first.has_buff(BuffId.QUEENSPAWNLARVATIMER), limit=600)

    # then a Roach Warren, and Roaches from it
    d.when_available("build_production")
    d.until("the Roach Warren placed", lambda: d.bot.structures(U.ROACHWARREN).amount == 1)
    assert not _available(d.obs)["train_army_alt"]
    d.until("the Roach Warren", lambda: d.bot.structures(U.ROACHWARREN).ready.amount == 1, limit=600)
    d.when_available("train_army_alt")
    assert d.bot.already_pending(U.ROACH) >= 1

    # an expansion: a Drone goes to build a Hatchery at the nearest free location
    d.when_available("expand")
    assert d.bot.already_pending(U.HATCHERY) == 1
    d.until("the new Hatchery", lambda: d.bot.townhalls.amount == 2)
    nearest = min(bot.expansion_locations_list, key=lambda p: p.distance_to(bot.start_location)
                  if p.distance_to(bot.start_location) > 5 else math.inf)
    assert d.bot.townhalls.closest_distance_to(nearest) < 4
    assert task._value_lost == 0.0


@pytest.mark.timeout(60)
@pytest.mark.parametrize("host", [{"map": "CatalystLE", "race": "random", "time_limit_s": 30}], indirect=True)
def test_random_plays_the_race_the_game_drew(run: Any, host: SC2EnvHost) -> None:
    d = _Driver(run, host)
    assert d.task.race == "random"
    assert d.task.book.race == d.bot.race.name.lower() != "random"
    d.when_available("train_worker")
    assert d.bot.already_pending(d.bot.workers.first.type_id) == 1
