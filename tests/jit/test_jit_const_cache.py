"""The compile cache of a @pl.jit kernel depends on the module constants and closure values it read: change one
and the next call compiles again (it used to run the stale kernel, silently computing with the old value)."""

import const_cache_kernels as k
import numpy as np

from tilefold.runtime import RunConfig

CFG = RunConfig(platform="a2a3sim")


def _run(a: np.ndarray) -> np.ndarray:
    out = np.zeros_like(a)
    k.scale(a, out, config=CFG)
    return out


def test_a_changed_module_constant_is_read_again(monkeypatch):
    a = np.random.default_rng(0).standard_normal((16, 64)).astype(np.float32)
    np.testing.assert_array_equal(_run(a), a * np.float32(2.0) + np.float32(0.5))
    count = k.scale.compile_count
    np.testing.assert_array_equal(_run(a), a * np.float32(2.0) + np.float32(0.5))
    assert k.scale.compile_count == count  # unchanged constants: a cache hit
    monkeypatch.setattr(k, "GAIN", 3.0)
    np.testing.assert_array_equal(_run(a), a * np.float32(3.0) + np.float32(0.5))
    monkeypatch.setattr(k, "BIAS", -4.0)
    np.testing.assert_array_equal(_run(a), a * np.float32(3.0) - np.float32(4.0))
    assert k.scale.compile_count == count + 2
