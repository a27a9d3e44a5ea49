"""The torch glue of tilefold.runtime, exercised with a minimal stand-in for torch (torch itself is optional and
may be absent): tensors are read through .detach().cpu().numpy() and written back in place with .copy_()."""

import contextlib
import sys
import types
from pathlib import Path

import jit_kernels as k
import numpy as np


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
