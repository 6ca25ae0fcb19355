"""``python -m sc2pool.cli``: the same command line as the ``sc2pool`` script and ``python -m sc2pool``."""

from sc2pool.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
