"""The backend: lowering a memory-planned tile program to a PTO program (``generate``).

It imports no pass machinery; the compile driver that runs the pipeline first is ``tilefold.compiler``.
"""

from tilefold.backend.codegen import InternalCheckError, generate
from tilefold.backend.pto import PTOProgram

__all__ = ["InternalCheckError", "PTOProgram", "generate"]
