"""Random command sequences: the game never raises unexpectedly and its invariants hold."""

from __future__ import annotations

import numpy as np
import pytest
from game_helpers import joined, play_random_commands
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.sim.units import TYPES

ABILITIES = [a.ability_id for a in D.ABILITIES] + [0, 99999]
MAPS = ["MoveToBeacon.SC2Map", "CollectMineralShards.SC2Map", "DefeatRoaches.SC2Map",
        "DefeatZerglingsAndBanelings.SC2Map"]

act = st.tuples(
    st.sampled_from(ABILITIES),
    st.lists(st.integers(0, 40), min_size=0, max_size=4),  # indices into live units (or junk)
    st.one_of(st.none(), st.tuples(st.floats(-10, 80), st.floats(-10, 80))),
    st.integers(-1, 40),  # target: index into live units, or none
    st.booleans(),
    st.integers(1, 24),  # loops to step afterwards
)


@pytest.mark.timeout(120)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(map_name=st.sampled_from(MAPS), seed=st.integers(0, 2**31), actions=st.lists(act, max_size=12))
def test_random_commands_keep_invariants(map_name: str, seed: int, actions: list) -> None:  # type: ignore[type-arg]
    g = joined(map_name, seed=seed)
    for _ in play_random_commands(g, actions):
        obs = sc_pb.ResponseObservation.FromString(g.observation_bytes(1))
        u = g.world.u
        assert len(obs.observation.raw_data.units) == len(u)
        assert np.all(np.diff(u.tag) > 0)
        x0, y0, x1, y1 = g.scenario.map.playable
        assert np.all((u.x >= x0) & (u.x <= x1) & (u.y >= y0) & (u.y <= y1))
        assert np.all(u.hp <= TYPES.hp_max[u.ti]) and np.all(u.cd >= 0)
        assert np.all(np.isfinite(u.x)) and np.all(np.isfinite(u.hp))
        if g.ended:
            assert obs.player_result
            break
