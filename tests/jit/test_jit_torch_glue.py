"""The torch glue of tilefold.runtime, exercised with a minimal stand-in for torch (torch itself is optional and
may be absent): tensors are read through .detach().cpu().numpy() and written back in place with .copy_()."""

import contextlib
import sys
import types
from pathlib import Path

import jit_kernels as k
import numpy as np
import torch_glue_kernels as tk


def fake_torch():
    torch = types.ModuleType("torch")

    class Tensor:
        def __init__(self, arr):
            self.arr = np.asarray(arr)
            self.dtype = self.arr.dtype

        def detach(self):
            return self

        def cpu(self):
            return self

        def numpy(self):
            return self.arr

        def copy_(self, other):
            self.arr[...] = other.arr
            return self

        def to(self, dtype):
            return Tensor(self.arr.astype(dtype))

    torch.Tensor = Tensor
    torch.bfloat16 = object()  # never equal to a numpy dtype
    torch.from_numpy = Tensor
    torch.no_grad = contextlib.nullcontext
    return torch


def test_torch_tensors_in_and_out(monkeypatch):
    torch = fake_torch()
    monkeypatch.setitem(sys.modules, "torch", torch)
    rng = np.random.default_rng(0)
    a = torch.Tensor(rng.standard_normal((64, 128)).astype(np.float32))
    b = torch.Tensor(rng.standard_normal((64, 128)).astype(np.float32))
    out = torch.Tensor(np.zeros((64, 128), np.float32))
    ret = k.add_tensor(a, b, out)
    assert ret is out
    np.testing.assert_allclose(out.arr, a.arr + b.arr, rtol=1e-6)


def test_running_a_kernel_does_not_import_torch():
    import subprocess

    code = ("import sys, numpy as np, tilefold.runtime, tilefold.language as pl\n"
            "sys.path.insert(0, 'tests/jit')\nimport jit_kernels as k\n"
            "a = np.ones((64, 128), np.float32); o = np.zeros_like(a)\nk.add_tensor(a, a, o)\n"
            "assert 'torch' not in sys.modules, 'tilefold imported torch'\nassert (o == 2).all()\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])


# ------------------------------------------------------------------------------------------------
# real torch (skipped when torch is not installed): the runtime as PyPTO users call it
# ------------------------------------------------------------------------------------------------


def _real_torch():
    import pytest

    return pytest.importorskip("torch")


def test_real_torch_dtypes_run_and_write_back_in_place():
    torch = _real_torch()
    gen = torch.Generator().manual_seed(3)
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.int32):
        if dtype is torch.int32:
            a = torch.randint(-50, 50, (64, 128), generator=gen, dtype=dtype)
            b = torch.randint(-50, 50, (64, 128), generator=gen, dtype=dtype)
        else:
            a = torch.randn(64, 128, generator=gen).to(dtype)
            b = torch.randn(64, 128, generator=gen).to(dtype)
        out = torch.zeros(64, 128, dtype=dtype)
        ret = tk.add_bare(a, b, out)
        assert ret is out and out.dtype == dtype
        ref = (a.double() + b.double()).to(dtype)  # one rounding of the exact sum, as the device gives
        torch.testing.assert_close(out, ref, rtol=0, atol=0)


def test_real_torch_non_contiguous_inputs_are_read_through_their_strides():
    torch = _real_torch()
    base = torch.arange(128 * 64, dtype=torch.float32).reshape(128, 64) / 100
    a = base.t()  # transposed view [64, 128]
    wide = torch.randn(64, 256)
    b = wide[:, ::2]  # strided slice [64, 128]
    assert not a.is_contiguous() and not b.is_contiguous()
    out = torch.zeros(64, 128)
    tk.add_bare(a, b, out)
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)


def test_real_torch_non_contiguous_outputs_change_the_callers_tensor():
    torch = _real_torch()
    a, b = torch.randn(64, 128), torch.randn(64, 128)
    big = torch.full((128, 64), -7.0)
    out_t = big.t()  # a transposed view: writing it must change big
    tk.add_bare(a, b, out_t)
    torch.testing.assert_close(big.t(), a + b, rtol=0, atol=0)
    frame = torch.full((64, 256), -7.0)
    window = frame[:, 64:192]  # a column window of a wider tensor
    tk.add_bare(a, b, window)
    torch.testing.assert_close(frame[:, 64:192], a + b, rtol=0, atol=0)
    assert (frame[:, :64] == -7).all() and (frame[:, 192:] == -7).all()  # nothing outside the window changes


def test_real_torch_inout_and_requires_grad():
    torch = _real_torch()
    a = torch.randn(64, 128, requires_grad=True)
    b = torch.randn(64, 128)
    out = torch.zeros(64, 128, requires_grad=True)  # a leaf that requires grad is still written in place
    tk.add_bare(a, b, out)
    torch.testing.assert_close(out.detach(), (a + b).detach(), rtol=0, atol=0)
    assert a.grad is None and out.requires_grad
    acc = torch.randn(64, 128)
    before = acc.clone()
    x = torch.randn(64, 128)
    tk.accumulate(x, acc)  # pl.InOut: read and written
    torch.testing.assert_close(acc, before + x, rtol=0, atol=0)


def test_real_torch_tensor_on_another_device_is_a_clear_error():
    import pytest

    torch = _real_torch()
    from tilefold.errors import TilefoldError

    a = torch.empty(64, 128, device="meta")
    b, out = torch.randn(64, 128), torch.zeros(64, 128)
    with pytest.raises(TilefoldError, match="device 'meta'.*runs on the"):
        tk.add_bare(a, b, out)
    with pytest.raises(TilefoldError, match="device 'meta'"):
        tk.add_bare(b, b, torch.empty(64, 128, device="meta"))


def test_real_torch_overlapping_output_is_a_clear_error():
    import pytest

    torch = _real_torch()
    from tilefold.errors import TilefoldError

    a = torch.randn(64, 128)
    out = torch.zeros(1, 128).expand(64, 128)  # every row is the same memory
    with pytest.raises(TilefoldError, match="cannot write the result"):
        tk.add_bare(a, a, out)


def test_read_only_numpy_output_is_a_clear_error():
    import pytest

    from tilefold.errors import TilefoldError

    a = np.ones((64, 128), np.float32)
    out = np.broadcast_to(np.zeros((1, 128), np.float32), (64, 128))
    with pytest.raises(TilefoldError, match="read-only numpy array"):
        tk.add_bare(a, a, out)


def test_numpy_non_contiguous_inputs_and_outputs():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((128, 64)).astype(np.float32).T  # a transposed view
    b = rng.standard_normal((64, 256)).astype(np.float32)[:, ::2]  # a strided slice
    frame = np.full((128, 64), -7.0, np.float32)
    tk.add_bare(a, b, frame.T)  # the output is a view: the frame changes
    np.testing.assert_array_equal(frame.T, a + b)


def test_numpy_scalars_are_numbers_for_scalar_parameters():
    a = np.random.default_rng(5).standard_normal((64, 128)).astype(np.float32)
    for s in (np.float32(2.0), np.float64(2.0), 2.0):
        out = np.zeros_like(a)
        k.scalar_forms(a, s, out)
        np.testing.assert_allclose(out, np.maximum((a * 2 - 1) / 4, 0), rtol=1e-6)
