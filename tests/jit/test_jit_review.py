"""Review regressions of the @pl.jit front end: constructs that gave a wrong answer or an unlocated crash.
References are numpy, computed here."""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError
from tilefold.runtime import RunConfig
from tilefold.sim.faults import OutOfBounds

PLATFORMS = ["a2a3sim", "a5sim"]
RNG = np.random.default_rng(23)


def r(*shape, dtype=np.float32):
    return (RNG.standard_normal(shape) * 0.5).astype(dtype)


@pl.jit
def window_of_computed_at_scalar(x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                                 out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.exp(x)
        out[:] = t[n:n + 8, :]
    return out


@pl.jit
def window_of_computed_at_read(x: pl.Tensor[[32, 64], pl.FP32], idx: pl.Tensor[[1, 8], pl.INT32],
                               out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.exp(x)
        row = pl.read(idx, [0, 0])
        out[:] = t[row:row + 8, :]
    return out


@pytest.mark.parametrize("platform", PLATFORMS)
def test_window_of_a_computed_tile_at_a_run_time_offset(platform):
    # the window is a zero-copy view of the tile at an offset known only on the device: inside the tile it is
    # exact; past the tile's end it used to read the neighbouring on-chip bytes (a silent wrong answer)
    x = r(32, 64)
    out = np.zeros((8, 64), np.float32)
    window_of_computed_at_scalar(x, 24, out, config=RunConfig(platform=platform))
    np.testing.assert_allclose(out, np.exp(x)[24:32], rtol=1e-5)
    with pytest.raises(OutOfBounds, match="leaves the 32x.* tile"):
        window_of_computed_at_scalar(x, 28, np.zeros((8, 64), np.float32), config=RunConfig(platform=platform))
    idx = np.zeros((1, 8), np.int32)
    idx[0, 0] = 5
    window_of_computed_at_read(x, idx, out, config=RunConfig(platform=platform))
    np.testing.assert_allclose(out, np.exp(x)[5:13], rtol=1e-5)
    idx[0, 0] = 30
    with pytest.raises(OutOfBounds, match="subview window at \\(30, 0\\)"):
        window_of_computed_at_read(x, idx, np.zeros((8, 64), np.float32), config=RunConfig(platform=platform))


ASSEMBLE_INTO_COMPUTED = {
    "full": ("        buf = pl.full([32, 64], dtype=pl.FP32, value=0.0)\n"
             "        buf = pl.assemble(buf, x[0:8, :], [8, 0])  # <-\n"),
    "subscript": "        buf = pl.exp(x)\n        buf[8:16, :] = x[0:8, :]  # <-\n",
    "loop": ("        buf = pl.exp(x)\n        for i in pl.range(1, 4):\n"
             "            buf = pl.assemble(buf, pl.add(buf[i * 8 - 8:i * 8, :], 1.0), [i * 8, 0])  # <-\n"),
}


@pytest.mark.parametrize("form", sorted(ASSEMBLE_INTO_COMPUTED))
def test_assemble_into_a_computed_tensor_is_a_located_error(form):
    # used to fail in codegen ("expected a tensor parameter ... got %buf") without a line
    src = ("import tilefold.language as pl\n\n@pl.jit\n"
           "def k(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n" + ASSEMBLE_INTO_COMPUTED[form]
           + "        out[:] = pl.add(buf, 1.0)\n    return out\n")
    kernel = pl.parse(src, "assemble_into_computed.py")
    with pytest.raises(NotSupportedError) as info:
        from tilefold.compiler import compile as compile_program

        compile_program(kernel)
    err = info.value
    assert "pl.assemble into 'buf', a tensor computed in the kernel, is not supported" in err.message
    line = next(i for i, t in enumerate(src.splitlines(), 1) if "# <-" in t)
    assert err.span is not None and err.span.line == line


@pl.jit
def acc_from_full(a: pl.Tensor[[32, 128], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16],
                  out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    # PyPTO: "pl.matmul_acc for every block, over an accumulator you allocated separately, also works"
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([32, 32], dtype=pl.FP32, value=0.0)
        for k in pl.range(4):
            k0 = k * 32
            acc = pl.matmul_acc(acc, a[:, k0:k0 + 32], b[k0:k0 + 32, :])
        out[:] = pl.add(acc, 1.0)
    return out


@pl.jit
def acc_from_vector(a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 32], pl.FP16],
                    c: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.matmul_acc(pl.mul(c, 2.0), a, b)
    return out


@pytest.mark.parametrize("platform", PLATFORMS)
def test_matmul_acc_into_an_accumulator_the_vector_unit_started(platform):
    # there is no Vec -> Acc path: the product is computed by a matmul and added by the vector unit (it used to
    # be refused: "tile.matmul_acc needs operand #0 in Acc, but it lives in Vec")
    a, b = r(32, 128, dtype=np.float16), r(128, 32, dtype=np.float16)
    out = np.zeros((32, 32), np.float32)
    acc_from_full(a, b, out, config=RunConfig(platform=platform))
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32) + 1.0, rtol=1e-3, atol=1e-3)
    a2, b2, c = r(32, 32, dtype=np.float16), r(32, 32, dtype=np.float16), r(32, 32)
    acc_from_vector(a2, b2, c, out, config=RunConfig(platform=platform))
    np.testing.assert_allclose(out, a2.astype(np.float32) @ b2.astype(np.float32) + 2 * c, rtol=1e-3, atol=1e-3)


def test_matmul_acc_into_a_parameter_names_the_remedy():
    # a tensor parameter accumulator is read by the cube (L1), which has no path to Acc either: refused at the line
    # (it used to hint "vector ops read Vec tiles: load the data with target_memory=pl.Mem.Vec")
    from tilefold.compiler import compile as compile_program
    from tilefold.errors import TypeInferenceError

    src = ("import tilefold.language as pl\n\n@pl.jit\n"
           "def k(a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], c: pl.Tensor[[32, 32], pl.FP32],\n"
           "      out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
           "        out[:] = pl.matmul_acc(c, a, b)  # <-\n    return out\n")
    with pytest.raises(TypeInferenceError) as info:
        compile_program(pl.parse(src, "acc.py"))
    assert "tile.matmul_acc needs operand #0 in Acc" in info.value.message
    assert "start it with pl.matmul of the first K block" in (info.value.hint or "")
    line = next(i for i, t in enumerate(src.splitlines(), 1) if "# <-" in t)
    assert info.value.span is not None and info.value.span.line == line
