"""The backend: lowering a memory-planned tile program to a PTO program (``generate``).

It imports no pass machinery; the compile driver that runs the pipeline first is ``tilefold.compiler``.
"""

from tilefold.backend.backend_type import BackendType, get_backend_type, reset_for_testing, set_backend_type
from tilefold.backend.codegen import InternalCheckError, generate
from tilefold.backend.pto import PTOProgram
from tilefold.errors import PartialCodegenError

__all__ = ["BackendType", "InternalCheckError", "PTOProgram", "PartialCodegenError", "generate", "get_backend_type",
           "reset_for_testing", "set_backend_type"]
