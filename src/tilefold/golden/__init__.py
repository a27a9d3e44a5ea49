"""The golden reference: a numpy interpreter that runs any ``ir.Program`` at any pipeline stage.

``run_program(program, inputs, entry=None, block_dim=1) -> {param name: array}``. See
``tilefold.golden.interpreter`` for the exact semantics (registry goldens, storage facts, launch model).
This package imports neither ``tilefold.backend`` nor ``tilefold.sim``: the reference stays independent
of the device path.
"""

from tilefold.golden.interpreter import (
    HOST,
    GoldenInterpreter,
    Instance,
    prepare_inputs,
    run_program,
    select_entry,
)
from tilefold.golden.summation_order import summation_order
from tilefold.golden.values import scalar_value, to_dtype

__all__ = [
    "HOST", "GoldenInterpreter", "Instance", "prepare_inputs", "run_program", "scalar_value", "select_entry",
    "summation_order", "to_dtype",
]
