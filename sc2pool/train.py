"""Where train() and evaluate() lived before the package was split into folders; it is now
:mod:`sc2pool.training.train`. This name stays importable (it is that same module object)."""

import sys
from typing import TYPE_CHECKING

from sc2pool.training import train as _moved

if TYPE_CHECKING:  # what type checkers see under the old name
    from sc2pool.training.train import *  # noqa: F403

sys.modules[__name__] = _moved
