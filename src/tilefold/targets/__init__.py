"""Chip facts as data: the targets tilefold compiles for.

A bottom-level package (it imports only ``tilefold.ir`` and ``tilefold.errors``) so that passes, codegen and
the simulator all read the same facts without importing one another.
"""

from tilefold.targets.chips import *  # noqa: F403
from tilefold.targets.chips import __all__  # noqa: F401
