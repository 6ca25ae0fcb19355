"""DefeatRoaches (pysc2 mini-game): 9 marines vs 4 roaches; +10 per roach, -1 per marine (rules and
sources: :mod:`sc2pool.engine.scenarios.waves`).

Each cleared wave brings 4 new roaches and 5 more marines, and resets positions.  Ends when all
marines are dead (Defeat) or at the 120 game-second limit (1920 loops, Tie).
"""

from __future__ import annotations

from sc2pool.engine import data as D
from sc2pool.engine.maps import MINIGAME
from sc2pool.engine.scenarios.waves import WaveScenario


class DefeatRoaches(WaveScenario):
    name = "DefeatRoaches"
    map = MINIGAME
    marines = 9
    reinforcements = 5
    wave = ((D.ROACH, 4),)
    kill_reward = 10
