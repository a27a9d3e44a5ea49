from tilefold.backend.pto import Buffer, PTOKernel, PTOProgram, TensorParam
from tilefold.backend.sync import insert_syncs
from tilefold.ir.types import DataType, MemorySpace
from tilefold.targets import get_target

FP32 = DataType.FP32
Vec, Mat, Left, Right, Acc = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right,
                              MemorySpace.Acc)


def buf(name, space, address, rows, cols, dtype=FP32, pitch=None, layout=None):
    if layout is None:
        layout = "NZ" if space is Acc else "ND"
    if pitch is None:
        pitch = (-(-rows // 16) * 16) if layout == "NZ" else cols
    return Buffer(name, space, address, (rows, cols), pitch, dtype, layout)


def program(body, buffers, tensors, func_type="InCore", target="Ascend910B", scalars=(), syncs=True):
    """A one-kernel program; ``syncs`` adds codegen's set_flag / wait_flag pairs to the hand-written body."""
    bufs = {b.name: b for b in buffers}
    body = insert_syncs(tuple(body), bufs, get_target(target)) if syncs else tuple(body)
    k = PTOKernel("k", func_type, tuple(tensors), tuple(scalars), tuple(t.name for t in tensors) + tuple(scalars),
                  bufs, body)
    return PTOProgram("p", target, {"k": k}, "k")


def tensor(name, shape, direction="In", dtype=FP32):
    return TensorParam(name, tuple(shape), dtype, direction)
