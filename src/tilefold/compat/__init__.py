"""PyPTO's module layout on tilefold: the implementation behind every PyPTO module path a user imports.

``ir.compile`` / ``ir.serialize`` / ``ir.deserialize`` (``ir_compile``), ``ir.pass_manager`` (``pass_manager``),
and each PyPTO-shaped face module (``tilefold.runtime.runner``, ``tilefold.ir.compiled_program``,
``tilefold.pypto_core.passes`` ...) forward into a module of this package; nothing inside tilefold imports a face
module. What needs a board (device runtimes, multi-card execution) raises a ``NotSupportedError`` that says it is
not on the simulator.
"""
