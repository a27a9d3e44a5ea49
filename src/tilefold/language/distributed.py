"""``tilefold.language.distributed`` (PyPTO's ``pld``): multi-rank communication is not modelled.

tilefold simulates one chip; there are no peers, windows or notifications. Importing this module raises a
``NotSupportedError`` that says so, instead of an ImportError from deep inside.
"""

from tilefold.errors import NotSupportedError

raise NotSupportedError("tilefold.language.distributed (pld: multi-rank put / get / notify / collectives) is not "
                        "supported: tilefold simulates one chip",
                        hint="keep the single-chip part of the program; see docs/runtime.md")
