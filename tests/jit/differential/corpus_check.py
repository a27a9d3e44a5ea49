"""The one oracle comparison of the differential corpora (edge, round 5, round 6): run a case on a config and
compare each output element by element with its hand-written numpy reference, at the tolerance of the output's
dtype and reduction length (``tilefold.testing.precision``); NaN and inf must match exactly."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from tilefold.analysis.precision_path import PrecisionPath
from tilefold.ir.types import dtype_from_numpy
from tilefold.runtime import RunConfig
from tilefold.testing.precision import tolerance_for


def check_output(name: str, index: int, actual: np.ndarray, expected: np.ndarray, terms: int) -> None:
    out_dtype = dtype_from_numpy(np.dtype(actual.dtype))
    rtol, atol = tolerance_for(out_dtype, PrecisionPath(out_dtype, terms) if out_dtype.is_float else None)
    a = np.asarray(actual).astype(np.float64)
    e = np.asarray(expected).astype(np.float64)
    assert a.shape == e.shape, f"{name} out {index}: shape {a.shape} != {e.shape}"
    with np.errstate(invalid="ignore"):
        special = np.isnan(e) | np.isinf(e) | np.isnan(a) | np.isinf(a)
        same_special = (np.isnan(a) & np.isnan(e)) | (a == e)
        ok = np.where(special, same_special, np.abs(a - e) <= atol + rtol * np.abs(e))
    if not ok.all():
        first = tuple(int(i) for i in np.argwhere(~ok)[0])
        raise AssertionError(f"{name} out {index}: {int((~ok).sum())} of {ok.size} elements wrong; first at "
                             f"{list(first)}: {a[first]!r} vs {e[first]!r}")


def run_case(name: str, case: Any, config: RunConfig) -> None:
    """``case``: a corpus ``Case`` (kernel, inputs(rng), reference(*args), outs, terms)."""
    args = case.inputs(np.random.default_rng(zlib.crc32(name.encode())))
    expected = case.reference(*[np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args])
    expected = expected if isinstance(expected, tuple) else (expected,)
    case.kernel(*args, config=config)
    assert len(expected) == len(case.outs)
    terms = case.terms if len(case.terms) == len(case.outs) else case.terms * len(case.outs)
    for i, (pos, exp, n) in enumerate(zip(case.outs, expected, terms, strict=True)):
        check_output(name, i, args[pos], exp, n)
