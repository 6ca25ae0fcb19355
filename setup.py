"""The engine's optional compiled kernels (everything else is in pyproject.toml).

``optional=True``: without a C compiler the install still succeeds and the engine runs its
pure-Python twins of the kernels (``sc2pool/engine/kernels.py``).  ``-ffp-contract=off``: a fused
multiply-add rounds once where Python rounds twice, and games would differ between the two.
"""

import sys
from glob import glob

from setuptools import Extension, setup

flags = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off"]
# _kernels.c #includes one _kernels_<area>.c per engine area: they are its dependencies (a change
# to one rebuilds the module) and go into the sdist with it
setup(ext_modules=[Extension("sc2pool.engine._kernels", ["sc2pool/engine/_kernels.c"],
                             depends=sorted(glob("sc2pool/engine/_kernels_*.c")),
                             extra_compile_args=flags, optional=True)])
