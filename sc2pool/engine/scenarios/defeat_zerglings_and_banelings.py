"""DefeatZerglingsAndBanelings (pysc2 mini-game): 9 marines vs 6 zerglings + 4 banelings.

+5 per zergling or baneling killed (an exploding baneling counts), -1 per marine.  Each cleared
wave brings 6 zerglings + 4 banelings and 4 more marines, and resets positions.  Banelings deal
splash damage (bonus vs Light marines).  Ends when all marines are dead (Defeat) or at the 120
game-second limit (1920 loops, Tie).
"""

from __future__ import annotations

from sc2pool.engine import data as D
from sc2pool.engine.maps import MINIGAME
from sc2pool.engine.scenarios.waves import WaveScenario


class DefeatZerglingsAndBanelings(WaveScenario):
    name = "DefeatZerglingsAndBanelings"
    map = MINIGAME
    marines = 9
    reinforcements = 4
    wave = ((D.ZERGLING, 6), (D.BANELING, 4))
    grouped = True
    kill_reward = 5
