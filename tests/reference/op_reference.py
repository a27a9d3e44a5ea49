"""An independent reference for every op of ``tilefold.ops.all_ops()`` (issue 17, item 2).

``TABLE`` maps each registry op name to an ``Entry``: the dtypes it is checked in, what is checked, and a builder
of ``Case``s. A case is one small ``@pl.jit`` kernel (all edge values in one tile), its inputs, and the outputs the
reference computes here, with numpy and ml_dtypes only: nothing of ``tilefold.ops`` or ``tilefold.golden`` is
imported or copied. ``test_op_reference.py`` runs each case through the golden interpreter (the registry's golden
semantics) and through the real pipeline and the simulator, and compares both with the reference element by element.

Semantics, where the registry's model, PyPTO and numpy could differ (each entry repeats what concerns it):

- floats: IEEE arithmetic; FP16 / BF16 operands compute in FP32 and round once (ties to even) to the result dtype,
  so overflow gives +-inf; subnormals are kept (no flush to zero); NaN propagates through max / min (numpy's
  ``maximum``, PyPTO is silent); the sign of a zero result of max / min / relu / sums is not checked.
- integers: two's-complement wrap-around on overflow (``abs`` / ``neg`` of the minimum stay the minimum);
  ``rem`` is PyPTO's FloorMod (``%``: the sign of the divisor), ``fmod`` the truncating remainder (the sign of the
  dividend); a zero divisor gives 0 for integers (PyPTO is silent; numpy's result) and NaN for floats; ``shr`` of a
  signed integer is arithmetic; shift amounts are checked in [0, bits).
- ``div`` / ``divs`` are PyPTO's FloatDiv: checked on floats only (x / 0 = +-inf, 0 / 0 = NaN).
- ``cast`` to an integer: mode ``round`` is PyPTO's ROUND (nearest, ties away from zero), ``rint`` nearest-even,
  ``floor`` / ``ceil`` / ``trunc`` as named; NaN gives 0 and out-of-range values saturate (Ascend's saturating
  conversion; PyPTO is silent). Float -> narrower float rounds to nearest even (overflow to inf) in every mode;
  integer -> narrower integer wraps.
- transcendental ops (exp, log, rsqrt, sin, cos, expdif) are compared within a few ulps of the output dtype;
  everything IEEE rounds correctly (+, -, *, /, sqrt, 1/x) and every integer, bitwise, select and move op exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from ref_values import (
    BF16,
    EXACT,
    EXACT_ZERO_SIGN_FREE,
    FLOAT_FORMAT,
    Tol,
    bf16_rne_bits,
    edges,
    f32r,
    f64,
    float_edges,
    grid,
    int_bits,
    int_edges,
    int_min_max,
    is_float,
    to_float,
    ulp,
    wrap,
)

FP32, FP16, INT32, INT16, INT8 = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int32),
                                  np.dtype(np.int16), np.dtype(np.int8))
FLOATS = (FP32, FP16, BF16)
INTS = (INT32, INT16, INT8)
DT_NAME = {FP32: "FP32", FP16: "FP16", BF16: "BF16", INT32: "INT32", INT16: "INT16", INT8: "INT8"}
N = 32  # every edge-value tile is [N, N]


@dataclass
class Case:
    label: str
    source: str  # the @pl.jit kernel
    inputs: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]  # the reference's outputs
    tol: Tol = EXACT
    target: str = "Ascend910B"


@dataclass
class Entry:
    op: str
    dtypes: tuple[np.dtype, ...]
    build: Callable[[np.dtype], list[Case]]
    checks: str  # what the entry pins down
    note: str = ""
    cases_cache: dict = field(default_factory=dict, repr=False)

    def cases(self, dtype: np.dtype) -> list[Case]:
        if dtype not in self.cases_cache:
            self.cases_cache[dtype] = self.build(dtype)
        return self.cases_cache[dtype]


TABLE: dict[str, Entry] = {}


def entry(op: str, dtypes, build, checks: str, note: str = "") -> None:
    if op in TABLE:
        raise ValueError(f"reference entry {op} declared twice")
    TABLE[op] = Entry(op, tuple(np.dtype(d) for d in dtypes), build, checks, note)


# ------------------------------------------------------------------------------------------------
# kernel text
# ------------------------------------------------------------------------------------------------


def _ty(shape, dtype) -> str:
    return f"pl.Tensor[[{', '.join(str(s) for s in shape)}], pl.{DT_NAME[np.dtype(dtype)]}]"


def kernel(ins: dict[str, np.ndarray], outs: dict[str, tuple[tuple[int, ...], np.dtype]], body: list[str],
           *, scope: bool = True, inout: tuple[str, ...] = ()) -> str:
    params = [f"{n}: {_ty(a.shape, a.dtype)}" for n, a in ins.items() if n not in inout]
    params += [f"{n}: pl.InOut[{_ty(a.shape, a.dtype)}]" for n, a in ins.items() if n in inout]
    params += [f"{n}: pl.Out[{_ty(s, d)}]" for n, (s, d) in outs.items()]
    ind = " " * (8 if scope else 4)
    lines = "\n".join(ind + b for b in body)
    ret = ", ".join(list(inout) + list(outs))
    head = "    with pl.at(level=pl.Level.CORE_GROUP):\n" if scope else ""
    return f"import tilefold.language as pl\n\n\n@pl.jit\ndef k({', '.join(params)}):\n{head}{lines}\n    return {ret}\n"


def _zeros(d: dict[str, np.ndarray]) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    return {n: (a.shape, a.dtype) for n, a in d.items()}


def origin(rank: int) -> str:
    return "[" + ", ".join(["0"] * rank) + "]"


def op_case(op: str, operands: list, want: np.ndarray, tol: Tol = EXACT, attrs: str = "", label: str = "",
            mem: str | None = None) -> Case:
    """One kernel applying ``op`` (``tile.X`` on loaded tiles, ``tensor.X`` on the tensors) to ``operands``: arrays
    become kernel inputs, strings are written as they are (scalar literals)."""
    level, name = op.split(".", 1)
    ins: dict[str, np.ndarray] = {}
    args: list[str] = []
    body: list[str] = []
    for i, o in enumerate(operands):
        if isinstance(o, np.ndarray):
            ins[f"a{i}"] = o
            if level == "tile":
                target = f", target_memory=pl.Mem.{mem}" if mem else ""
                body.append(f"x{i} = pl.load(a{i}, {origin(o.ndim)}, {list(o.shape)}{target})")
                args.append(f"x{i}")
            else:
                args.append(f"a{i}")
        else:
            args.append(str(o))
    call = f"pl.{level}.{name}({', '.join(args)}{', ' + attrs if attrs else ''})"
    if level == "tile":
        body.append(f"pl.store({call}, {origin(want.ndim)}, out)")
    else:
        body.append(f"out[:] = {call}")
    src = kernel(ins, {"out": (want.shape, want.dtype)}, body)
    return Case(label or op, src, ins, {"out": want}, tol)


def both(name: str, dtypes, build_for: Callable[[str, np.dtype], list[Case]], checks: str, note: str = "",
         levels: tuple[str, ...] = ("tile", "tensor")) -> None:
    """Entries ``tile.<name>`` and ``tensor.<name>`` (the tensor form lowers to the tile op)."""
    for level in levels:
        entry(f"{level}.{name}", dtypes, (lambda lv: lambda dt: build_for(f"{lv}.{name}", dt))(level), checks, note)


# ------------------------------------------------------------------------------------------------
# reference arithmetic
# ------------------------------------------------------------------------------------------------


def _quiet(fn):
    def run(*a):
        with np.errstate(all="ignore"):
            return fn(*a)
    return run


def obj(a) -> np.ndarray:
    """Integers as Python ints (no overflow while the reference computes)."""
    return np.asarray(a).astype(np.int64).astype(object)


def _floor_mod(x: float, y: float) -> float:
    """PyPTO's FloorMod on floats: the truncated remainder moved to the divisor's sign (x - floor(x / y) * y)."""
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
        return math.nan
    r = math.fmod(x, y) if not math.isinf(y) else x
    if r != 0 and (r < 0) != (y < 0):
        r += y
    return r if r != 0 else math.copysign(0.0, y)


def _trunc_mod(x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
        return math.nan
    return x if math.isinf(y) else math.fmod(x, y)


def _int_floor_mod(x: int, y: int) -> int:
    return 0 if y == 0 else x % y  # Python's % is the floor remainder


def _int_trunc_mod(x: int, y: int) -> int:
    if y == 0:
        return 0
    r = abs(x) % abs(y)
    return -r if x < 0 else r


def _nan_max(x, y):
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x >= y, x, y))


def _nan_min(x, y):
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x <= y, x, y))


def _vec(fn):
    return np.vectorize(fn, otypes=[object])


#: float reference of each two-operand op: (x64, y64) -> float64 result before the final rounding
FLOAT_BINARY: dict[str, Callable] = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y, "div": lambda x, y: x / y,
    "maximum": _nan_max, "minimum": _nan_min,
    "rem": lambda x, y: np.vectorize(_floor_mod, otypes=[float])(x, y),
    "fmod": lambda x, y: np.vectorize(_trunc_mod, otypes=[float])(x, y),
    "prelu": lambda x, s: np.where(x > 0, x, x * s),
}
#: integer reference: (Python-int object arrays) -> exact integer result, wrapped afterwards
INT_BINARY: dict[str, Callable] = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "maximum": lambda x, y: np.where(x >= y, x, y), "minimum": lambda x, y: np.where(x <= y, x, y),
    "rem": _vec(_int_floor_mod), "fmod": _vec(_int_trunc_mod),
    "and_": lambda x, y: x & y, "or_": lambda x, y: x | y, "xor": lambda x, y: x ^ y,
    "shl": lambda x, y: x * _vec(lambda s: 2 ** int(s))(y),
    "shr": lambda x, y: x // _vec(lambda s: 2 ** int(s))(y),  # floor division: the arithmetic shift
}
CMP = {0: ("eq", lambda x, y: x == y), 1: ("ne", lambda x, y: x != y), 2: ("lt", lambda x, y: x < y),
       3: ("le", lambda x, y: x <= y), 4: ("gt", lambda x, y: x > y), 5: ("ge", lambda x, y: x >= y)}


def float_ref(fn, *xs) -> np.ndarray:
    dtype = next(np.asarray(x).dtype for x in xs if isinstance(x, np.ndarray))
    return to_float(_quiet(fn)(*(f64(x) if isinstance(x, np.ndarray) else float(x) for x in xs)), dtype)


def int_ref(fn, *xs) -> np.ndarray:
    dtype = next(np.asarray(x).dtype for x in xs if isinstance(x, np.ndarray))
    return wrap(fn(*(obj(x) if isinstance(x, np.ndarray) else int(x) for x in xs)), dtype)


def ref(name: str, *xs) -> np.ndarray:
    dtype = next(np.asarray(x).dtype for x in xs if isinstance(x, np.ndarray))
    return float_ref(FLOAT_BINARY[name], *xs) if is_float(dtype) else int_ref(INT_BINARY[name], *xs)


def shift_amounts(dtype: np.dtype, shape) -> np.ndarray:
    n = int(np.prod(shape))
    return (np.arange(n) % int_bits(dtype)).reshape(shape).astype(dtype)


# ------------------------------------------------------------------------------------------------
# element-wise two-operand ops and their scalar forms
# ------------------------------------------------------------------------------------------------

SIGN_FREE = {"maximum", "minimum"}


def _binary_cases(name: str):
    def build(op: str, dt: np.dtype) -> list[Case]:
        a, b = grid(edges(dt))
        if name in ("shl", "shr"):
            b = shift_amounts(dt, a.shape)
        tol = EXACT_ZERO_SIGN_FREE if name in SIGN_FREE else EXACT
        return [op_case(op, [a, b], ref(name, a, b), tol)]
    return build


BINARY_DOC = {
    "add": "x + y", "sub": "x - y", "mul": "x * y", "div": "x / y (FloatDiv: +-inf on a zero divisor, NaN for 0/0)",
    "maximum": "max(x, y), NaN propagates", "minimum": "min(x, y), NaN propagates",
    "rem": "PyPTO FloorMod: sign of the divisor; zero divisor: NaN (float) / 0 (int)",
    "fmod": "truncated remainder: sign of the dividend; zero divisor: NaN (float) / 0 (int)",
    "and_": "bitwise and", "or_": "bitwise or", "xor": "bitwise xor",
    "shl": "x << s, wrapping", "shr": "x >> s, arithmetic on signed ints",
}
BINARY_DTYPES = {"add": FLOATS + INTS, "sub": FLOATS + INTS, "mul": FLOATS + INTS, "div": FLOATS,
                 "maximum": FLOATS + INTS, "minimum": FLOATS + INTS, "rem": FLOATS + (INT32, INT16),
                 "fmod": FLOATS + (INT32, INT16), "and_": INTS, "or_": INTS, "xor": INTS, "shl": INTS, "shr": INTS}
for _n, _doc in BINARY_DOC.items():
    both(_n, BINARY_DTYPES[_n], _binary_cases(_n), f"value: {_doc}; all pairs of edge values")

#: scalar form -> (two-operand op, float scalar, int scalar)
SCALAR_FORMS = {"adds": ("add", "1.5", "7"), "subs": ("sub", "-2.5", "-7"), "muls": ("mul", "-3.0", "-3"),
                "divs": ("div", "3.0", None), "maxs": ("maximum", "0.5", "3"), "mins": ("minimum", "0.5", "3"),
                "rems": ("rem", "-2.5", "-3"), "fmods": ("fmod", "-2.5", "-3"), "ands": ("and_", None, "90"),
                "ors": ("or_", None, "48"), "xors": ("xor", None, "127"), "shls": ("shl", None, "3"),
                "shrs": ("shr", None, "2")}


def _scalar_cases(name: str):
    base, fs, is_ = SCALAR_FORMS[name]

    def build(op: str, dt: np.dtype) -> list[Case]:
        a = grid(edges(dt))[0].T.copy()
        s = fs if is_float(dt) else is_
        tol = EXACT_ZERO_SIGN_FREE if base in SIGN_FREE else EXACT
        return [op_case(op, [a, s], ref(base, a, float(s) if is_float(dt) else int(s)), tol)]
    return build


for _n, (_b, _fs, _is) in SCALAR_FORMS.items():
    _dts = (FLOATS if _fs else ()) + (tuple(d for d in BINARY_DTYPES[_b] if not is_float(d)) if _is else ())
    both(_n, _dts, _scalar_cases(_n), f"value: {BINARY_DOC[_b]} with a scalar right operand")


def _cmp_cases(op: str, dt: np.dtype) -> list[Case]:
    a, b = grid(edges(dt))
    cases = []
    scalar = op.endswith("cmps")
    for kind, (kname, fn) in CMP.items():
        y = (0.5 if is_float(dt) else 3) if scalar else b
        with np.errstate(invalid="ignore"):
            mask = fn(f64(a) if is_float(dt) else obj(a), y if scalar else (f64(b) if is_float(dt) else obj(b)))
        want = np.asarray(mask, bool).astype(dt)
        operands = [a, str(y)] if scalar else [a, b]
        cases.append(op_case(op, operands, want, attrs=f"cmp_type={kind}", label=f"{op}[{kname}]"))
    return cases


for _n in ("cmp", "cmps"):
    both(_n, FLOATS + (INT32,), _cmp_cases, "value: dense mask (1 where the comparison holds, 0 elsewhere, NaN "
         "compares unequal to everything) for each of EQ NE LT LE GT GE", "the dense mask is the registry's model")


# ------------------------------------------------------------------------------------------------
# unary ops
# ------------------------------------------------------------------------------------------------

def _ulps(dt: np.dtype) -> int:
    return 4 if dt == FP32 else 1


UNARY_FLOAT = {
    "exp": (np.exp, True), "log": (np.log, True), "sqrt": (np.sqrt, False), "rsqrt": (lambda x: 1.0 / np.sqrt(x), True),
    "neg": (lambda x: -x, False), "abs": (np.abs, False), "recip": (lambda x: 1.0 / x, False),
    "relu": (lambda x: np.where(x > 0, x, np.where(np.isnan(x), x, 0.0)), False),
    "sin": (np.sin, True), "cos": (np.cos, True),
}
UNARY_INT = {"neg": lambda x: -x, "abs": lambda x: np.where(x < 0, -x, x), "relu": lambda x: np.where(x > 0, x, 0),
             "not_": lambda x: -x - 1}


def _unary_cases(name: str):
    def build(op: str, dt: np.dtype) -> list[Case]:
        a = grid(edges(dt))[0].T.copy()
        if is_float(dt):
            fn, transcendental = UNARY_FLOAT[name]
            tol = Tol(ulps=_ulps(dt)) if transcendental else (EXACT_ZERO_SIGN_FREE if name == "relu" else EXACT)
            return [op_case(op, [a], float_ref(fn, a), tol)]
        return [op_case(op, [a], int_ref(UNARY_INT[name], a))]
    return build


UNARY_DOC = {"exp": "e^x (ulps)", "log": "ln x: -inf at +-0, NaN below 0 (ulps)", "sqrt": "sqrt, -0 stays -0",
             "rsqrt": "1 / sqrt(x): +-inf at +-0 (ulps)", "neg": "-x (ints wrap)", "abs": "|x| (ints: abs(min) = min)",
             "recip": "1 / x: +-inf at +-0", "relu": "max(x, 0), NaN propagates", "sin": "sin (ulps)",
             "cos": "cos (ulps)", "not_": "bitwise not"}
for _n, _doc in UNARY_DOC.items():
    _dts = (FLOATS if _n in UNARY_FLOAT else ()) + ((INT32, INT16) if _n in ("neg", "abs", "relu") else ()) \
        + (INTS if _n == "not_" else ())
    both(_n, _dts, _unary_cases(_n), f"value: {_doc}; every edge value")
