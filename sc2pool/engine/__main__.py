"""``python -m sc2pool.engine -listen HOST -port P ...``: the engine as the fake SC2_x64 binary."""

import sys

from sc2pool.engine.server import main

sys.exit(main())
