"""Where ZmqVecEnv lived before the package was split into folders; it is now
:mod:`sc2pool.pool.vec_env`. This name stays importable (it is that same module object)."""

import sys
from typing import TYPE_CHECKING

from sc2pool.pool import vec_env as _moved

if TYPE_CHECKING:  # what type checkers see under the old name
    from sc2pool.pool.vec_env import *  # noqa: F403

sys.modules[__name__] = _moved
