"""One @pl.jit kernel per ordered pair of the dtypes FP32, FP16, BF16, INT32, INT16, INT8, UINT8: ``c_A_B`` casts an
A tensor to B in the default mode (test_jit_differential_round5.py compares each with numpy). A real module:
@pl.jit reads sources."""

import tilefold.language as pl


@pl.jit
def c_FP32_FP16(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP16)
    return out


@pl.jit
def c_FP32_BF16(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.BF16)
    return out


@pl.jit
def c_FP32_INT32(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT32)
    return out


@pl.jit
def c_FP32_INT16(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT16)
    return out


@pl.jit
def c_FP32_INT8(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT8)
    return out


@pl.jit
def c_FP32_UINT8(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.UINT8)
    return out


@pl.jit
def c_FP16_FP32(x: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP32)
    return out


@pl.jit
def c_FP16_BF16(x: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.BF16)
    return out


@pl.jit
def c_FP16_INT32(x: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT32)
    return out


@pl.jit
def c_FP16_INT16(x: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT16)
    return out


@pl.jit
def c_FP16_INT8(x: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT8)
    return out


@pl.jit
def c_FP16_UINT8(x: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.UINT8)
    return out


@pl.jit
def c_BF16_FP32(x: pl.Tensor[[16, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP32)
    return out


@pl.jit
def c_BF16_FP16(x: pl.Tensor[[16, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP16)
    return out


@pl.jit
def c_BF16_INT32(x: pl.Tensor[[16, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT32)
    return out


@pl.jit
def c_BF16_INT16(x: pl.Tensor[[16, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT16)
    return out


@pl.jit
def c_BF16_INT8(x: pl.Tensor[[16, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT8)
    return out


@pl.jit
def c_BF16_UINT8(x: pl.Tensor[[16, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.UINT8)
    return out


@pl.jit
def c_INT32_FP32(x: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP32)
    return out


@pl.jit
def c_INT32_FP16(x: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP16)
    return out


@pl.jit
def c_INT32_BF16(x: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.BF16)
    return out


@pl.jit
def c_INT32_INT16(x: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT16)
    return out


@pl.jit
def c_INT32_INT8(x: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT8)
    return out


@pl.jit
def c_INT32_UINT8(x: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.UINT8)
    return out


@pl.jit
def c_INT16_FP32(x: pl.Tensor[[16, 64], pl.INT16], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP32)
    return out


@pl.jit
def c_INT16_FP16(x: pl.Tensor[[16, 64], pl.INT16], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP16)
    return out


@pl.jit
def c_INT16_BF16(x: pl.Tensor[[16, 64], pl.INT16], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.BF16)
    return out


@pl.jit
def c_INT16_INT32(x: pl.Tensor[[16, 64], pl.INT16], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT32)
    return out


@pl.jit
def c_INT16_INT8(x: pl.Tensor[[16, 64], pl.INT16], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT8)
    return out


@pl.jit
def c_INT16_UINT8(x: pl.Tensor[[16, 64], pl.INT16], out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.UINT8)
    return out


@pl.jit
def c_INT8_FP32(x: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP32)
    return out


@pl.jit
def c_INT8_FP16(x: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP16)
    return out


@pl.jit
def c_INT8_BF16(x: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.BF16)
    return out


@pl.jit
def c_INT8_INT32(x: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT32)
    return out


@pl.jit
def c_INT8_INT16(x: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT16)
    return out


@pl.jit
def c_INT8_UINT8(x: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.UINT8)
    return out


@pl.jit
def c_UINT8_FP32(x: pl.Tensor[[16, 64], pl.UINT8], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP32)
    return out


@pl.jit
def c_UINT8_FP16(x: pl.Tensor[[16, 64], pl.UINT8], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.FP16)
    return out


@pl.jit
def c_UINT8_BF16(x: pl.Tensor[[16, 64], pl.UINT8], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.BF16)
    return out


@pl.jit
def c_UINT8_INT32(x: pl.Tensor[[16, 64], pl.UINT8], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT32)
    return out


@pl.jit
def c_UINT8_INT16(x: pl.Tensor[[16, 64], pl.UINT8], out: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT16)
    return out


@pl.jit
def c_UINT8_INT8(x: pl.Tensor[[16, 64], pl.UINT8], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(x, target_type=pl.INT8)
    return out
