"""``@pl.inline`` helpers are ``@pl.jit.inline`` templates: a jit entry splices them too (frontend/inline.py)."""

import numpy as np
import pl_inline_kernels as k


def test_jit_entry_splices_a_pl_inline_helper():
    a = np.random.default_rng(8).standard_normal((16, 64)).astype(np.float32)
    out = np.zeros_like(a)
    k.entry(a, out)
    np.testing.assert_allclose(out, np.exp(a) + 2.0, rtol=1e-5)
    assert [f.name for f in k.entry.parse(a, out).functions] == ["entry"]
