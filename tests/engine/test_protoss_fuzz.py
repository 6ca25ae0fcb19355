"""Random Protoss commands in a Protoss melee game: every command is answered, nothing raises,
and the Protoss systems' records stay consistent with the units."""

from __future__ import annotations

import numpy as np
import pytest
from game_helpers import play_random_commands
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protoss_helpers import CYBERCORE, GATEWAY, PYLON, WARPGATE, away, create, protoss_game, rich
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.sim.races import PROTOSS
from sc2pool.engine.sim.systems.warpgate import ABILITIES as PROTOSS_ABILITIES

ABILITIES = sorted({*PROTOSS.trains, *PROTOSS.builds, *PROTOSS_ABILITIES, 298, 299, 195, 207, 3671, 306,
                    1528, 1530, 1568, 16, 23, 4, 1, 0})

act = st.tuples(
    st.sampled_from(ABILITIES),
    st.lists(st.integers(0, 60), min_size=0, max_size=4),
    st.one_of(st.none(), st.tuples(st.floats(10, 180), st.floats(10, 180))),
    st.integers(-1, 60),
    st.booleans(),
    st.integers(1, 64),
)


@pytest.mark.timeout(300)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), actions=st.lists(act, max_size=20))
def test_random_protoss_commands_are_answered_and_keep_the_records_consistent(seed: int, actions: list) -> None:  # type: ignore[type-arg]
    g = protoss_game(seed=seed % 1000)
    rich(g)
    x, y = away(g, 8)
    create(g, PYLON, (x, y))
    create(g, GATEWAY, (x + 3.5, y + 0.5))
    create(g, WARPGATE, (x - 3.5, y + 0.5))
    create(g, CYBERCORE, (x + 0.5, y + 3.5))
    w = g.world
    for _ in play_random_commands(g, actions):
        obs = sc_pb.ResponseObservation.FromString(g.observation_bytes(1))
        assert len(obs.observation.raw_data.units) <= len(w.u)
        tags = set(w.u.tag.tolist())
        assert set(w.tempo.synced) <= tags and set(w.warpgates.warping) <= tags
        assert all(np.isfinite(s) for st_ in w.construction.structures.values() for s in st_.starts)
        assert w.supply.minerals[1] >= 0 and w.supply.vespene[1] >= 0
