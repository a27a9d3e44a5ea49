"""The device simulator: executes PTO programs on byte-addressed memories with traps and cycle counts.

``simulate(pto, inputs, target=None, block_dim=1) -> SimResult`` runs a program produced by
``tilefold.compiler.compile``; traps raise a ``DeviceFault`` subclass (``DeviceHang``,
``UnsupportedDataPath`` and its subclass ``IllegalUnit``, ``OutOfBounds``, ``MissingSync`` for two pipes
touching the same bytes without a set_flag / wait_flag between them, ``Deadlock``, ``RaceDetected`` for two
units of one launch touching the same GM bytes unordered). Time is a per-pipe timeline (``timeline.py``);
``trace.py`` writes it as Perfetto JSON or a picture. This package imports neither
``tilefold.passes`` nor ``tilefold.language``: it runs PTO programs only.
"""

from tilefold.sim.faults import (
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

__all__ = [
    "Core", "Deadlock", "DeviceFault", "DeviceHang", "Handle", "IllegalUnit", "Machine", "MissingSync",
    "OutOfBounds", "RaceDetected", "SimResult",
    "UnsupportedDataPath", "copy_rows", "read", "simulate", "write",
]
