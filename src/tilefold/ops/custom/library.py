"""Reference kernels for the custom ops used by the example programs (``examples/subblock``, with its
``e2e_*.py`` suite, ``examples/seeds/customop_*.py``) and the demo. Call ``register_example_kernels()``
before running those programs (``tilefold run FILE --kernels examples`` does); registering twice is
harmless here (the library replaces its own entries), and ``unregister_example_kernels()`` removes them again.

Every kernel is tile-local: it sees only the window its sub-block computes, as a compiled kernel would, so
a split program matches the whole one exactly when TileAndBindSubBlock projected the windows correctly.
The semantics of each example symbol are stated in the example's docstring / comment; where the example
only names the kernel, the reference below fixes it (documented per entry).
"""

from __future__ import annotations

import numpy as np

from tilefold.ops.custom.kernels import register_custom_op, unregister_custom_op


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """Numerically stable softmax: subtract the max, exponentiate, normalise by the sum."""
    x = x.astype(np.float32)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


#: the seed's two softmax custom ops (section 4.4 of the sub-block seed), declared once per target by their work:
#: scalar loops on S, reduce axis -> (cycles per parallel point, per reduction step). Fitted by
#: ``benchmarks/sub_block.py --calibrate`` on the seed's 12 measured times per target with the launch constant
#: (``targets.LAUNCH_OVERHEAD``); docs/backend.md has the fit and its cross-validation. 910C priced as 910B.
SEED_SOFTMAX_WORK = {
    "Ascend910B": {1: (106.1, 661.2), 0: (99.1, 596.3)},
    "Ascend950": {1: (22.8, 176.2), 0: (1.7, 164.2)},
}
SEED_SOFTMAX_SOURCE = "fitted by benchmarks/sub_block.py --calibrate on the seed's section 4.4 table (910B2 / 950PR)"


def seed_softmax_cost(axis: int, values: dict | None = None):
    """The work-based cost declaration of the seed's softmax kernel reducing ``axis``."""
    from tilefold.ops.custom.cost import CostDeclaration, WorkCost

    values = SEED_SOFTMAX_WORK if values is None else values
    by_target = {t: {"default": WorkCost(per[axis][0], per[axis][1], 0.0, "S", SEED_SOFTMAX_SOURCE)}
                 for t, per in values.items()}
    if "Ascend910B" in by_target:
        by_target.setdefault("Ascend910C", by_target["Ascend910B"])
    return CostDeclaration(by_target)


def _like(x: np.ndarray, value: np.ndarray) -> np.ndarray:
    """``value`` in the dtype of ``x`` (a kernel's result has its output init's dtype)."""
    return np.asarray(value).astype(np.asarray(x).dtype)


def _identity(x: np.ndarray) -> np.ndarray:
    return np.array(x, copy=True)


def _scale_bias(x: np.ndarray, b: np.ndarray, scale: float) -> np.ndarray:
    # customop_broadcast_scalar.py: x [M, N], bias row b [1, N] (map (0, d1)), scalar scale
    x32 = np.asarray(x, np.float32)
    return _like(x, x32 * np.float32(scale) + np.asarray(b, np.float32))


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # customop_multi_result.py: one kernel, two results (the positive and the negative part of x)
    x32 = np.asarray(x, np.float32)
    return _like(x, np.maximum(x32, 0.0)), _like(x, np.minimum(x32, 0.0))


def _row_reduce(x: np.ndarray) -> np.ndarray:
    # customop_reduction_input.py: [M, N] -> [M] (map (d0, d1) -> (d0)), sum over the reduction iterator d1
    return _like(x, np.asarray(x, np.float32).sum(axis=1))


def _flash_softmax(x: np.ndarray) -> np.ndarray:
    # e2e_flash_attention.py: row softmax of the FP32 score tile, returned in FP16 for the P @ V matmul
    return softmax(x, axis=1).astype(np.float16)


E2E_KERNELS = {
    # examples/subblock/e2e_*.py (tests/e2e_subblock): the seed's E2E cases
    "e2e.identity": (_identity, None),  # y = x
    "e2e.add_row": (lambda x, r: _like(x, np.asarray(x, np.float32) + np.asarray(r, np.float32)), None),
    "e2e.col_sum": (lambda x: _like(x, np.asarray(x, np.float32).sum(axis=0, keepdims=True)), None),
    "e2e.row_sum": (lambda x: _like(x, np.asarray(x, np.float32).sum(axis=1, keepdims=True)), None),
    "e2e.scale": (lambda x, s: _like(x, np.asarray(x, np.float32) * np.float32(s)), None),
    "e2e.pos_neg": (_split, None),  # (max(x, 0), min(x, 0))
    "e2e.double_exp": (lambda x: _like(x, np.float32(2) * np.exp(np.asarray(x, np.float32))), None),
    "e2e.softmax_last": (lambda x: _like(x, softmax(x, axis=1)), seed_softmax_cost(1)),  # in the dtype of x
    "e2e.softmax_first": (lambda x: _like(x, softmax(x, axis=0)), seed_softmax_cost(0)),
    "e2e.flash_softmax": (_flash_softmax, seed_softmax_cost(1)),  # a row softmax: priced by the seed's work
}

EXAMPLE_KERNELS = {
    # examples/subblock
    "example.softmax_last": (lambda x: softmax(x, axis=1), seed_softmax_cost(1)),
    "example.softmax_first": (lambda x: softmax(x, axis=0), seed_softmax_cost(0)),
    "example.add_bias": (lambda x, b: (x + b).astype(x.dtype), None),
    # examples/seeds/customop_*.py
    "identity_kernel": (_identity, None),  # customop_identity.py: y = x
    "scale_bias_kernel": (_scale_bias, None),  # customop_broadcast_scalar.py: y = x * scale + bias
    "split_kernel": (_split, None),  # customop_multi_result.py: (max(x, 0), min(x, 0))
    "row_reduce_kernel": (_row_reduce, None),  # customop_reduction_input.py: y = sum(x, axis=1)
    "macro_kernel": (_identity, None),  # customop_macro.py: a copy (its tmp / sync args are not data)
    "softmax_reduce_last": (lambda x: softmax(x, axis=1), seed_softmax_cost(1)),  # customop_softmax.py, axis=1
    "softmax_reduce_first": (lambda x: softmax(x, axis=0), seed_softmax_cost(0)),  # customop_softmax.py, axis=0
    **E2E_KERNELS,
}


def register_example_kernels() -> list[str]:
    for symbol, (kernel, cost) in EXAMPLE_KERNELS.items():
        register_custom_op(symbol, kernel, cost, replace=True)
    return sorted(EXAMPLE_KERNELS)


def unregister_example_kernels() -> None:
    """Remove every kernel ``register_example_kernels`` registered (e.g. at the end of a test)."""
    for symbol in EXAMPLE_KERNELS:
        unregister_custom_op(symbol)
