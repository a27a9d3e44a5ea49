"""The device simulator: executes PTO programs on byte-addressed memories with traps and cycle counts.

``simulate(pto, inputs, target=None, block_dim=1) -> SimResult`` runs a program produced by
``tilefold.compiler.compile``; traps raise a ``DeviceFault`` subclass (``DeviceHang``,
``UnsupportedDataPath`` and its subclass ``IllegalUnit``, ``OutOfBounds``, ``MissingSync`` for two pipes
touching the same bytes without a set_flag / wait_flag between them, ``Deadlock``, ``DanglingEvent`` for a
kernel's pl.system.sync_src no sync_dst consumed, ``RaceDetected`` for two units of one launch touching the
same GM bytes unordered). Time is a per-pipe timeline (``timeline.py``);
``trace.py`` writes it as Perfetto JSON or a picture. This package imports neither
``tilefold.passes`` nor ``tilefold.language``: it runs PTO programs only.
"""

from tilefold.sim.faults import (
    DanglingEvent,
    Deadlock,
    DeviceFault,
    DeviceHang,
    IllegalUnit,
    MissingSync,
    OutOfBounds,
    RaceDetected,
    UnsupportedDataPath,
)
from tilefold.sim.machine import Core, Machine, SimResult, simulate
from tilefold.sim.memory import Handle, copy_rows, read, write


def instruction_cycles(op: str, dtypes, shape, valid_shape=None, target="Ascend910B", *, blocks: int = 1,
                       variant: str | None = None):
    """The price of one instruction as the simulator charges it (``tilefold.targets.instruction_cycles``),
    ``op`` also a tilefold op name (``"tile.adds"``, ``"adds"``: the registry's PTO instruction)."""
    from tilefold.ops import all_ops
    from tilefold.targets import instruction_cycles as price

    ops = all_ops()
    for name in (op, f"tile.{op}"):
        o = ops.get(name)
        if o is not None and o.pto:
            op = o.pto
            break
    return price(op, dtypes, shape, valid_shape, target, blocks=blocks, variant=variant)

__all__ = [
    "Core", "DanglingEvent", "Deadlock", "DeviceFault", "DeviceHang", "Handle", "IllegalUnit", "Machine", "MissingSync",
    "OutOfBounds", "RaceDetected", "SimResult",
    "UnsupportedDataPath", "copy_rows", "instruction_cycles", "read", "simulate", "write",
]
