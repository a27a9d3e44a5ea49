"""The device simulator: executes PTO programs on byte-addressed memories with traps and cycle counts.

``simulate(pto, inputs, target=None, block_dim=1) -> SimResult`` runs a program produced by
``tilefold.compiler.compile``; traps raise a ``DeviceFault`` subclass (``DeviceHang``,
``UnsupportedDataPath`` and its subclass ``IllegalUnit``, ``OutOfBounds``, ``RaceDetected``). This package
imports neither ``tilefold.passes`` nor ``tilefold.language``: it runs PTO programs only.
"""

from tilefold.sim.faults import DeviceFault, DeviceHang, IllegalUnit, OutOfBounds, RaceDetected, UnsupportedDataPath
from tilefold.sim.machine import Core, Machine, SimResult, simulate
from tilefold.sim.memory import Handle, copy_rows, read, write

__all__ = [
    "Core", "DeviceFault", "DeviceHang", "Handle", "IllegalUnit", "Machine", "OutOfBounds", "RaceDetected", "SimResult",
    "UnsupportedDataPath", "copy_rows", "read", "simulate", "write",
]
