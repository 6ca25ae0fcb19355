"""The spells on the map in the observation (``sim/systems/effects.py``): ``ObservationRaw.effects``
with the client's effect ids and radii, the units the real client shows for Force Fields, KD8
Charges and Parasitic Bombs, and what python-sc2 makes of both."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from s2clientprotocol import raw_pb2
from sc2.game_state import GameState
from sc2.ids.effect_id import EffectId
from test_protoss_abilities import spawn
from test_terran_spells import disarm
from test_terran_tech import act, rich_eco

from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import abilities as A
from sc2pool.engine.sim.systems import effects as E
from sc2pool.engine.sim.systems import protoss_abilities as P
from sc2pool.engine.sim.systems import zerg_spells as Z

MARAUDER = 51


def effects(g: Any, player: int = 1) -> list[Any]:
    return list(g.observation(player).observation.raw_data.effects)


def spell_units(g: Any, player: int = 1) -> list[Any]:
    return [x for x in g.observation(player).observation.raw_data.units if x.tag >= E.FAKE_TAG_BASE]


def test_a_psionic_storm_is_reported_where_it_is_while_it_lasts_and_python_sc2_reads_it() -> None:
    g, w = rich_eco()
    ht = spawn(w, P.HIGH_TEMPLAR, 1, 20.0, 30.0)
    disarm(w, ht)
    w.research.grant(1, P.STORM_TECH)
    w.abilities.energy[ht] = (200.0, w.loop, 200.0)
    g.step(1)
    assert effects(g) == []
    assert act(g, P.STORM, [ht], (26.0, 30.5)) == C.SUCCESS
    g.step(1)
    [e] = effects(g)
    assert (e.effect_id, e.alliance, e.owner) == (E.PSI_STORM, raw_pb2.Self, 1)
    assert [(p.x, p.y) for p in e.pos] == [(26.0, 30.5)]
    assert e.radius == pytest.approx(1.5)  # the client's EffectData of PsiStormPersistent
    state = GameState(g.observation(1))
    [seen] = list(state.effects)
    assert seen.id == EffectId.PSISTORMPERSISTENT and seen.is_mine and seen.radius == pytest.approx(1.5)
    g.step(P.STORM_LOOPS)
    assert effects(g) == []


def test_a_force_field_is_a_unit_of_type_135_with_one_tag_while_it_lasts() -> None:
    assert P.FIELD_RADIUS == E.SPELL_UNIT_RADIUS[E.FORCE_FIELD_UNIT] == 1.5  # BD:94137, python-sc2
    g, w = rich_eco()
    s = spawn(w, P.SENTRY, 1, 20.0, 30.0)
    disarm(w, s)
    g.step(1)
    assert act(g, P.FORCE_FIELD, [s], (26.0, 30.0)) == C.SUCCESS
    g.step(1)
    [ff] = spell_units(g)
    assert (ff.unit_type, ff.owner, ff.alliance, ff.pos.x, ff.pos.y, ff.radius) == (135, 1, raw_pb2.Self, 26.0, 30.0,
                                                                                     1.5)
    g.step(20)
    [again] = spell_units(g)
    assert again.tag == ff.tag  # the same unit from one observation to the next
    assert effects(g) == []  # (a unit, not an effect)
    g.step(P.FIELD_LOOPS)
    assert spell_units(g) == []


def test_a_kd8_charge_is_a_unit_until_it_blasts() -> None:
    g, w = rich_eco()
    [reaper] = w.spawn(A.REAPER, 1, [20.0], [30.0]).tolist()
    disarm(w, reaper)
    g.step(1)
    assert act(g, A.KD8, [reaper], (23.0, 30.0)) == C.SUCCESS
    g.step(1)
    [kd8] = spell_units(g)
    assert (kd8.unit_type, kd8.pos.x, kd8.pos.y) == (E.KD8_CHARGE_UNIT, 23.0, 30.0)
    g.step(A.KD8_DELAY + 1)
    assert spell_units(g) == []


def test_a_scan_a_bile_and_a_cloud_carry_their_ids_and_radii() -> None:
    g, w = rich_eco()
    w.abilities.scans.append(A.Scan(1, 40.0, 40.0, w.loop + 100))
    w.zerg.spells.biles.append((1, 30.0, 31.0, w.loop + 50))
    w.zerg.spells.clouds.append((33.0, 34.0, w.loop + 50, 1))
    got = {e.effect_id: e for e in effects(g)}
    assert set(got) == {E.SCANNER_SWEEP, E.CORROSIVE_BILE, E.BLINDING_CLOUD}
    assert got[E.SCANNER_SWEEP].radius == pytest.approx(13.0)
    assert (got[E.CORROSIVE_BILE].pos[0].x, got[E.CORROSIVE_BILE].pos[0].y) == (30.0, 31.0)
    assert got[E.CORROSIVE_BILE].radius == pytest.approx(Z.BILE_RADIUS)
    assert got[E.BLINDING_CLOUD].radius == pytest.approx(Z.CLOUD_RADIUS)


def test_another_players_effect_is_reported_only_where_the_player_sees() -> None:
    g, w = rich_eco()
    w.protoss.storms.append(P.Storm(26.0, 30.5, w.loop + 50, w.loop, 1))
    h, wd = w.map.height, w.map.width
    dark = np.zeros((h, wd), dtype=np.uint8)

    def parsed(player: int, vis: np.ndarray | None) -> list[Any]:
        return list(raw_pb2.ObservationRaw.FromString(w.effects.raw_bytes(player, vis, lambda x, y: 0.0)).effects)

    assert parsed(2, dark) == []  # in the fog: not reported
    assert len(parsed(1, dark)) == 1  # its own: always
    lit = dark.copy()
    lit[30, 26] = 2
    [e] = parsed(2, lit)
    assert (e.alliance, e.owner) == (raw_pb2.Enemy, 1)
    assert len(parsed(2, None)) == 1  # no fog


def test_a_marauder_is_no_spell() -> None:
    """Ordinary units keep their tags from the store: no spell unit appears without a spell."""
    g, w = rich_eco()
    spawn(w, MARAUDER, 1, 20.0, 30.0)
    g.step(2)
    assert spell_units(g) == [] and effects(g) == []
