from tilefold.backend.pto import Buffer, PTOKernel, PTOProgram, TensorParam
from tilefold.ir.types import DataType, MemorySpace

FP32 = DataType.FP32
Vec, Mat, Left, Right, Acc = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right,
                              MemorySpace.Acc)


def buf(name, space, address, rows, cols, dtype=FP32, pitch=None, layout=None):
    if layout is None:
        layout = "NZ" if space is Acc else "ND"
    if pitch is None:
        pitch = (-(-rows // 16) * 16) if layout == "NZ" else cols
    return Buffer(name, space, address, (rows, cols), pitch, dtype, layout)


def program(body, buffers, tensors, func_type="InCore", target="Ascend910B", scalars=()):
    k = PTOKernel("k", func_type, tuple(tensors), tuple(scalars), tuple(t.name for t in tensors) + tuple(scalars),
                  {b.name: b for b in buffers}, tuple(body))
    return PTOProgram("p", target, {"k": k}, "k")


def tensor(name, shape, direction="In", dtype=FP32):
    return TensorParam(name, tuple(shape), dtype, direction)
