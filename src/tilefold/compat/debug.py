"""PyPTO's debugging helpers (``torch_codegen``, ``validate_pass_ir_codegen_results``).

tilefold does not generate torch code from IR; the same question (does the IR compute the right thing?) is
answered by its golden interpreter, which executes any ``ir.Program`` in numpy: ``tilefold.golden.run_program``,
and ``tilefold.testing.run_and_compare`` compares it with the simulator. Each PyPTO name here raises a
``NotSupportedError`` that says so.
"""

from __future__ import annotations

from typing import Any

from tilefold.errors import NotSupportedError

_NAMES = {
    "torch_codegen": "turning IR into torch source",
    "validate_pass_ir_codegen_results": "per-pass torch-codegen validation",
    "validate_ir": "per-pass torch-codegen validation",
}


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        raise NotSupportedError(f"tilefold.debug.{name} ({_NAMES[name]}) is not supported",
                                hint="run the IR with tilefold.golden.run_program(program, inputs), or compare it with "
                                     "the simulator: tilefold.testing.run_and_compare(program, inputs)")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
