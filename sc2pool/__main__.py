import sys

from sc2pool.cli import main

sys.exit(main())
