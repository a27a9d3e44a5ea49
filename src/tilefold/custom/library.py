"""Reference kernels for the custom ops used by the example programs (``examples/subblock``,
``examples/seeds``) and the demo. Call ``register_example_kernels()`` before running those programs;
registering twice is harmless here (the library replaces its own entries)."""

from __future__ import annotations

import numpy as np

from tilefold.custom import register_custom_op


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """Numerically stable softmax: subtract the max, exponentiate, normalise by the sum."""
    x = x.astype(np.float32)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


def _softmax_cost(*shapes: tuple[int, ...]) -> float:
    # max, sub+exp, sum, div: four vector passes over the tile, 256 B per cycle each, plus start-up.
    elems = int(np.prod(shapes[0])) if shapes else 0
    return 4 * (elems * 4 / 256) + 4 * 16


EXAMPLE_KERNELS = {
    "example.softmax_last": (lambda x: softmax(x, axis=1), _softmax_cost),
    "example.softmax_first": (lambda x: softmax(x, axis=0), _softmax_cost),
    "example.add_bias": (lambda x, b: (x + b).astype(x.dtype), None),
}


def register_example_kernels() -> list[str]:
    for symbol, (kernel, cost) in EXAMPLE_KERNELS.items():
        register_custom_op(symbol, kernel, cost, replace=True)
    return sorted(EXAMPLE_KERNELS)
