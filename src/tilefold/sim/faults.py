"""Device traps raised by the simulator. Each names the instruction, the address and gives a hint."""

from __future__ import annotations

from tilefold.errors import Span, TilefoldError


class DeviceFault(TilefoldError):
    """A trap the (simulated) device raises while executing an instruction. A ``TilefoldError`` (``except
    TilefoldError`` sees it), rendered as a device fault; ``tilefold`` exits 3 on it, not 2."""

    kind = "fault"

    def __init__(self, message: str, *, instruction: str = "", address: int | None = None, hint: str = "",
                 unit: str = "", space: str = "", span: Span | None = None) -> None:
        self.message = message
        self.span = span  # source location of the IR statement the instruction was lowered from
        self.instruction = instruction
        self.address = address
        self.hint = hint
        self.unit = unit
        self.space = space
        Exception.__init__(self, self.render())  # TilefoldError's fields are set above; its render is ours

    def render(self) -> str:
        parts = [f"device {self.kind}: {self.message}"]
        if self.unit:
            parts.append(f"  on {self.unit}")
        if self.instruction:
            parts.append(f"  at `{self.instruction}`")
        if self.span is not None and self.span.line:
            parts.append(f"  from {self.span.filename}:{self.span.line}"
                         + (f": {self.span.source_line.strip()}" if self.span.source_line else ""))
        if self.address is not None:
            a = self.address
            parts.append(f"  address {'-' if a < 0 else ''}0x{abs(a):x}" + (f" in {self.space}" if self.space else ""))
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)

    def with_unit(self, unit: str) -> DeviceFault:
        self.unit = unit
        self.args = (self.render(),)
        return self


class DeviceHang(DeviceFault):
    """A vector instruction got an operand whose base address is not 32-byte aligned (#1789)."""

    kind = "hang"


class UnsupportedDataPath(DeviceFault):
    """A copy along a path the chip does not have (e.g. Mat -> Mat on Ascend910C), or a unit reading a
    memory space it cannot read."""

    kind = "unsupported data path"


class RaceDetected(DeviceFault):
    """Two units of one launch (vector sub-blocks, blocks) touch the same GM bytes without an order between
    them: both write, or one reads what the other writes (``tilefold.sim.races``). ``first`` / ``second``
    are the two accesses (unit, instruction), ``tensor`` the GM tensor, ``elements`` the flat element
    range [lo, hi) both touch."""

    kind = "race"

    def __init__(self, message: str, *, first=None, second=None, tensor: str = "",
                 elements: tuple[int, int] = (0, 0), hint: str = "") -> None:
        self.first = first
        self.second = second
        self.tensor = tensor
        self.elements = elements
        super().__init__(message, hint=hint, space="GM")


class IllegalUnit(UnsupportedDataPath):
    """A kernel touched a memory its unit cannot reach: an AIV kernel (one vector sub-block) sees only its
    own Vec and GM; an AIC kernel (the cube) sees only Mat, Left, Right, Acc, Bias and GM."""

    kind = "illegal unit access"


class OutOfBounds(DeviceFault):
    """An access outside a memory space or outside a GM tensor."""

    kind = "out-of-bounds access"



__all__ = ["DanglingEvent", "Deadlock", "DeviceFault", "DeviceHang", "IllegalUnit", "MissingSync", "OutOfBounds",
           "RaceDetected", "UnsupportedDataPath"]


class MissingSync(DeviceFault):
    """Two instructions on different pipes touch overlapping bytes (at least one writes) and no
    set_flag / wait_flag orders them: on the chip their order is undefined."""

    kind = "missing sync"

    def __init__(self, message: str, *, first: str = "", second: str = "", **kw) -> None:
        self.first = first
        self.second = second
        super().__init__(message, **kw)


class Deadlock(DeviceFault):
    """A wait_flag with no pending set_flag of its event: the pipe would wait forever."""

    kind = "deadlock"


class DanglingEvent(DeviceFault):
    """A kernel-written set_flag (pl.system.sync_src) no wait_flag consumed before the kernel ended: the event
    stays raised, and the next kernel on the core that waits for it goes on before its own set."""

    kind = "dangling event"
