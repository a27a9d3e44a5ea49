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

import ml_dtypes
import numpy as np
from ref_values import (
    BF16,
    BYTES,
    EXACT,
    EXACT_ZERO_SIGN_FREE,
    FLOAT_FORMAT,
    FP8E4M3,
    FP8E5M2,
    Tol,
    bf16_rne_bits,
    edges,
    f32r,
    f64,
    float_edges,
    grid,
    int_bits,
    int_min_max,
    is_float,
    to_float,
    to_fp8,
    ulp,
    wrap,
)

FP32, FP16, INT32, INT16, INT8 = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int32),
                                  np.dtype(np.int16), np.dtype(np.int8))
UINT32, UINT16, UINT8 = np.dtype(np.uint32), np.dtype(np.uint16), np.dtype(np.uint8)
FLOATS = (FP32, FP16, BF16)
INTS = (INT32, INT16, INT8)
UINTS = (UINT32, UINT16, UINT8)
DT_NAME = {FP32: "FP32", FP16: "FP16", BF16: "BF16", INT32: "INT32", INT16: "INT16", INT8: "INT8",
           FP8E4M3: "FP8E4M3", FP8E5M2: "FP8E5M2", UINT32: "UINT32", UINT16: "UINT16", UINT8: "UINT8"}
N = 32  # every edge-value tile is [N, N]


@dataclass
class Case:
    label: str
    source: str  # the @pl.jit kernel
    inputs: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]  # the reference's outputs
    tol: Tol = EXACT
    target: str = "Ascend910B"
    block_dim: int = 1
    custom_kernels: dict[str, Callable] = field(default_factory=dict)  # symbol -> numpy kernel, registered first


@dataclass
class Entry:
    op: str
    dtypes: tuple[np.dtype, ...]
    build: Callable[[np.dtype], list[Case]]
    checks: str  # what the entry pins down
    note: str = ""
    # the simulator runs the cases on each of these targets (ops whose lowering depends on the target: casts
    # legalised per architecture, the cube's data paths)
    targets: tuple[str, ...] = ("Ascend910B",)
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
           *, inout: tuple[str, ...] = ()) -> str:
    """A ``@pl.jit`` kernel: ``ins`` as In (or InOut when named in ``inout``) tensors, ``outs`` as Out tensors, the
    ``body`` lines inside one ``pl.at`` scope."""
    params = [f"{n}: {_ty(a.shape, a.dtype)}" for n, a in ins.items() if n not in inout]
    params += [f"{n}: pl.InOut[{_ty(a.shape, a.dtype)}]" for n, a in ins.items() if n in inout]
    params += [f"{n}: pl.Out[{_ty(s, d)}]" for n, (s, d) in outs.items()]
    lines = "\n".join(" " * 8 + b for b in body)
    ret = ", ".join(list(inout) + list(outs))
    return (f"import tilefold.language as pl\n\n\n@pl.jit\ndef k({', '.join(params)}):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n{lines}\n    return {ret}\n")


def origin(rank: int) -> str:
    return "[" + ", ".join(["0"] * rank) + "]"


def op_case(op: str, operands: list, want: np.ndarray, tol: Tol = EXACT, attrs: str = "", label: str = "") -> Case:
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
                body.append(f"x{i} = pl.load(a{i}, {origin(o.ndim)}, {list(o.shape)})")
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
    a = np.asarray(a)
    return a.astype(np.uint64 if a.dtype.kind == "u" else np.int64).astype(object)


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
    "fmod": "truncated remainder: sign of the dividend; zero divisor: NaN; floats only (PyPTO: floating-point modulo)",
    "and_": "bitwise and", "or_": "bitwise or", "xor": "bitwise xor",
    "shl": "x << s, wrapping", "shr": "x >> s, arithmetic on signed ints",
}
BINARY_DTYPES = {"add": FLOATS + INTS + UINTS, "sub": FLOATS + INTS + UINTS, "mul": FLOATS + INTS + UINTS,
                 "div": FLOATS, "maximum": FLOATS + INTS + UINTS, "minimum": FLOATS + INTS + UINTS,
                 "rem": FLOATS + (INT32, INT16), "fmod": FLOATS, "and_": INTS + UINTS,
                 "or_": INTS + UINTS, "xor": INTS + UINTS, "shl": INTS + UINTS,
                 "shr": INTS + UINTS}  # shr of an unsigned integer is logical
for _n, _doc in BINARY_DOC.items():
    both(_n, BINARY_DTYPES[_n], _binary_cases(_n), f"value: {_doc}; all pairs of edge values")

#: scalar form -> (two-operand op, float scalar, int scalar)
SCALAR_FORMS = {"adds": ("add", "1.5", "7"), "subs": ("sub", "-2.5", "-7"), "muls": ("mul", "-3.0", "-3"),
                "divs": ("div", "3.0", None), "maxs": ("maximum", "0.5", "3"), "mins": ("minimum", "0.5", "3"),
                "rems": ("rem", "-2.5", "-3"), "fmods": ("fmod", "-2.5", None), "ands": ("and_", None, "90"),
                "ors": ("or_", None, "48"), "xors": ("xor", None, "127"), "shls": ("shl", None, "3"),
                "shrs": ("shr", None, "2")}


def _scalar_cases(name: str):
    base, fs, is_ = SCALAR_FORMS[name]

    def build(op: str, dt: np.dtype) -> list[Case]:
        a = grid(edges(dt))[0].T.copy()
        s = fs if is_float(dt) else is_ if dt.kind == "i" else str(abs(int(is_)))  # unsigned: a positive scalar
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
        if name == "recip":
            return _recip_cases(op, dt, a)
        if is_float(dt):
            fn, transcendental = UNARY_FLOAT[name]
            tol = Tol(ulps=_ulps(dt)) if transcendental else (EXACT_ZERO_SIGN_FREE if name == "relu" else EXACT)
            return [op_case(op, [a], float_ref(fn, a), tol)]
        return [op_case(op, [a], int_ref(UNARY_INT[name], a))]
    return build


def _recip_cases(op: str, dt: np.dtype, a: np.ndarray) -> list[Case]:
    """high_precision=True: the correctly rounded reciprocal; the default: tilefold's stated approximate path,
    within 2**-20 relative (8 FP32 units) of it, one unit of FP16 / BF16 after their rounding."""
    want = float_ref(UNARY_FLOAT["recip"][0], a)
    return [op_case(op, [a], want, EXACT, attrs="high_precision=True", label=f"{op}[high_precision]"),
            op_case(op, [a], want, Tol(ulps=8 if dt == FP32 else 1), label=f"{op}[default]")]


UNARY_DOC = {"exp": "e^x (ulps)", "log": "ln x: -inf at +-0, NaN below 0 (ulps)", "sqrt": "sqrt, -0 stays -0",
             "rsqrt": "1 / sqrt(x): +-inf at +-0 (ulps)", "neg": "-x (ints wrap)", "abs": "|x| (ints: abs(min) = min)",
             "recip": "1 / x: +-inf at +-0; high_precision=True exact, the default within 8 ulp (FP32) / 1 ulp", "relu": "max(x, 0), NaN propagates", "sin": "sin (ulps)",
             "cos": "cos (ulps)", "not_": "bitwise not"}
for _n, _doc in UNARY_DOC.items():
    # PyPTO: sin / cos are FP32-only (rejected at op construction for other dtypes)
    _floats = (FP32,) if _n in ("sin", "cos") else FLOATS
    _dts = (_floats if _n in UNARY_FLOAT else ()) + ((INT32, INT16) if _n in ("neg", "abs", "relu") else ()) \
        + (INTS + UINTS if _n == "not_" else ())
    both(_n, _dts, _unary_cases(_n), f"value: {_doc}; every edge value")


# ------------------------------------------------------------------------------------------------
# cast
# ------------------------------------------------------------------------------------------------

def _round_half_away(x):
    # exact in float64 for FP32 / FP16 / BF16 inputs (x + 0.5 needs at most 25 significant bits here)
    return np.where(x < 0, -np.floor(-x + 0.5), np.floor(x + 0.5))


def _round_half_even(x):
    fl = np.floor(x)
    diff = x - fl
    odd = np.mod(fl, 2) != 0
    return np.where(diff > 0.5, fl + 1, np.where(diff < 0.5, fl, np.where(odd, fl + 1, fl)))


#: PyPTO's cast modes for a float -> integer conversion (ROUND: ties away from zero, RINT: ties to even)
CAST_MODES = {"round": _round_half_away, "rint": _round_half_even, "floor": np.floor, "ceil": np.ceil,
              "trunc": np.trunc}


def cast_ref(x: np.ndarray, target: np.dtype, mode: str = "round") -> np.ndarray:
    target = np.dtype(target)
    if target in (FP8E4M3, FP8E5M2):
        return to_fp8(f64(x) if is_float(x.dtype) else obj(x).astype(np.float64), target)
    if is_float(x.dtype) and is_float(target):
        if target == BF16:
            return bf16_rne_bits(x.astype(np.float32)) if x.dtype != BF16 else x.copy()
        return to_float(f64(x), target)
    if is_float(x.dtype):  # float -> integer: round per the mode, NaN -> 0, saturate
        lo, hi = int_min_max(target)
        with np.errstate(invalid="ignore"):
            r = CAST_MODES[mode](f64(x))
            r = np.where(np.isnan(r), 0.0, np.clip(r, lo, hi))
        return np.array([int(v) for v in r.ravel()], dtype=np.int64).reshape(x.shape).astype(target)
    if is_float(target):  # integer -> float: one rounding of the exact integer
        if target != BF16:
            return to_float(obj(x).astype(np.float64), target)
        # to 8 significant bits, ties to even, directly from the exact integer (no FP32 step in between)
        m, e = np.frexp(obj(x).astype(np.float64))
        return bf16_rne_bits(np.ldexp(np.rint(m * 256.0), e - 8).astype(np.float32))
    return wrap(obj(x), target)  # integer -> integer wraps


def cast_values(dt: np.dtype) -> np.ndarray:
    """Rounding-mode ties, FP16 / BF16 / FP8 ties and overflow, the FP16 / FP8 subnormal ranges, NaN and
    infinities."""
    if not is_float(dt):
        lo, hi = int_min_max(dt)
        vals = [0, 1, -1, 127, 128, -129, 255, 256, 257, 32767, 32768, -32769, 65504, 65519, 65520, 70000,
                2 ** 24 + 1, 2 ** 24 + 3, -(2 ** 24) - 1, hi, lo, hi - 1, 12345678,
                0x01008001, 0x01018000, 0x00FF8000]  # BF16 ties and near-ties only a direct rounding gets right
        vals = [v for v in vals if lo <= v <= hi]
        return np.resize(np.array(vals, np.int64), N * N).reshape(N, N).astype(dt)
    vals = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5, 0.49999997, -0.49999997, 1.4999999, -2.7, 2.7, 0.0, -0.0,
            math.nan, math.inf, -math.inf, 1e10, -1e10, 2147483520.0, -2147483648.0, 65504.0, 65519.99, 65520.0,
            70000.0, -70000.0, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8),
            2 ** -25, 3 * 2 ** -25, 2 ** -26, 2 ** -24, 5 * 2 ** -26, 1e-8, 40000.5, 32767.5, -32768.5, 127.5,
            -128.5, 1e-40, 3.0e38,
            448.0, 464.0, 465.0, -480.0, 57344.0, 61440.0, 61439.0, 2 ** -10, 3 * 2 ** -10, 2 ** -17, 3 * 2 ** -17]
    rng = np.random.default_rng(3)
    vals = np.concatenate([np.array(vals), rng.uniform(-300, 300, N * N - len(vals))])
    return to_float(vals, dt).reshape(N, N)


CAST_TARGETS = {FP32: (FP16, BF16, FP8E4M3, FP8E5M2, INT32, INT16, INT8), FP16: (FP32, BF16, FP8E4M3, INT32, INT16),
                BF16: (FP32, FP16, INT32),
                INT32: (FP32, FP16, BF16, INT16, INT8), INT16: (FP32, FP16, BF16, INT32, INT8), INT8: (FP16, INT32, INT16)}


def _cast_cases(op: str, dt: np.dtype) -> list[Case]:
    x = cast_values(dt)
    cases = []
    for target in CAST_TARGETS[dt]:
        modes = ("round", "rint", "floor", "ceil", "trunc") if is_float(dt) and not is_float(target) else ("round",)
        for mode in modes:
            cases.append(op_case(op, [x], cast_ref(x, target, mode),
                                 attrs=f"target_type=pl.{DT_NAME[target]}, mode='{mode}'",
                                 label=f"{op}[->{DT_NAME[target]}, {mode}]"))
    return cases


both("cast", tuple(CAST_TARGETS), _cast_cases,
     "value: every target dtype and rounding mode on ties, overflow, subnormals, NaN / inf",
     "float -> int: round = ties away from zero (PyPTO ROUND), rint = ties to even (RINT), floor / ceil / trunc; "
     "NaN -> 0, saturating. float -> float: nearest-even (BF16 by the bit rule), overflow to inf (FP8E4M3, which has "
     "no inf: NaN, ml_dtypes' model). int -> int: wrap")


# ------------------------------------------------------------------------------------------------
# reductions
# ------------------------------------------------------------------------------------------------

def reduction_input(dt: np.dtype, *, prod: bool = False) -> np.ndarray:
    """Random values; rows / columns 0-7 each carry one special (NaN, +-inf, both infinities, -0, a subnormal,
    two largest values that overflow a sum); the other rows and columns are finite."""
    rng = np.random.default_rng(11)
    if not is_float(dt):
        lo, hi = int_min_max(dt)
        x = rng.integers(-50, 50, (N, N)).astype(np.int64)
        x[0, 0], x[1, 1], x[1, 2], x[2, 2], x[3, 3] = hi, hi, hi, lo, 0  # wrap-around in sums, an exact zero
        x[4, 5] = x[4, 4] = 7  # ties for the arg-extrema: the first one counts
        if prod:
            x = np.clip(x, -3, 3)
            x[5] = 3
        return x.astype(dt)
    p, emin, big = FLOAT_FORMAT[dt]
    mag = rng.uniform(0.5, 2.0, (N, N)) if prod else rng.uniform(-10, 10, (N, N))
    if prod:
        mag *= rng.choice([-1.0, 1.0], (N, N))
    x = mag
    x[0, 0] = math.nan
    x[1, 1] = math.inf
    x[2, 2] = -math.inf
    x[3, 3], x[3, 4] = math.inf, -math.inf
    x[4, 4] = -0.0
    # with a product, the subnormal's row and column are +-1 so that its product is exact (gradual underflow loses
    # bits in an order-dependent way)
    if prod:
        x[5, :] = np.sign(x[5, :])
        x[:, 5] = np.sign(x[:, 5])
    x[5, 5] = 2.0 ** (emin - p + 1)
    x[6, 6], x[6, 7] = big, big
    x[7, 7] = x[7, 8] = 9.5  # a tie for the arg-extrema
    return to_float(x, dt)


def _reduce(x64, kind: str, axis: int):
    if kind == "sum":
        return np.sum(x64, axis=axis, keepdims=True)
    if kind == "prod":
        return np.prod(x64, axis=axis, keepdims=True)
    nan = np.isnan(x64).any(axis=axis, keepdims=True)
    ext = (np.max if kind == "max" else np.min)(np.where(np.isnan(x64), 0.0, x64), axis=axis, keepdims=True)
    return np.where(nan, np.nan, ext)


def _arg(x: np.ndarray, kind: str, axis: int) -> np.ndarray:
    """Index of the first extremum along ``axis`` (a NaN counts as the extremum: the first NaN wins)."""
    moved = np.moveaxis(x, axis, -1)
    out = np.zeros(moved.shape[:-1], np.int64)
    for idx in np.ndindex(moved.shape[:-1]):
        line = [float(v) for v in moved[idx]] if is_float(x.dtype) else [int(v) for v in moved[idx]]
        nans = [i for i, v in enumerate(line) if v != v]
        if nans:
            out[idx] = nans[0]
            continue
        best = max(line) if kind == "argmax" else min(line)
        out[idx] = line.index(best)
    return np.expand_dims(out, axis).astype(np.int32)


def _reduction_cases(kind: str, axis: int):
    def build(op: str, dt: np.dtype) -> list[Case]:
        x = reduction_input(dt, prod=kind == "prod")
        if kind.startswith("arg"):
            return [op_case(op, [x], _arg(x, kind, axis))]
        if not is_float(dt):
            return [op_case(op, [x], wrap(_reduce(obj(x), kind, axis) if kind in ("sum", "prod") else
                                          _reduce(x.astype(np.int64), kind, axis), dt))]
        with np.errstate(all="ignore"):
            x64 = f64(x)
            want = to_float(_reduce(x64, kind, axis), dt)
            if kind in ("max", "min"):
                return [op_case(op, [x], want, EXACT_ZERO_SIGN_FREE)]
            # the order of an FP32 reduction is free: n * eps32 of the sum of magnitudes (of the product), plus
            # one ulp of the output dtype for the final rounding of the FP32 result
            scale = np.sum(np.abs(x64), axis=axis, keepdims=True) if kind == "sum" else np.abs(f64(want))
            bound = N * 2.0 ** -23 * np.where(np.isfinite(scale), scale, 0.0) + ulp(f64(want), dt)
        return [op_case(op, [x], want, Tol(atol=bound, signed_zero=False))]
    return build


for _k in ("sum", "max", "min", "prod", "argmax", "argmin"):
    for _p, _ax in (("row", 1), ("col", 0)):
        _doc = {"sum": "sum (order free within n eps)", "max": "maximum, NaN propagates", "min": "minimum, NaN propagates",
                "prod": "product (order free within n eps)",
                "argmax": "INT32 index of the first maximum (first NaN if any)",
                "argmin": "INT32 index of the first minimum (first NaN if any)"}[_k]
        both(f"{_p}_{_k}", FLOATS + (INT32, INT16), _reduction_cases(_k, _ax),
             f"value: {_p} {_doc}; lines with NaN, +-inf, both infinities, -0, subnormals, overflow, ties, int wrap")


# ------------------------------------------------------------------------------------------------
# broadcasts: row_expand_* (vector [M, 1]) and col_expand_* (vector [1, N])
# ------------------------------------------------------------------------------------------------

EXPAND_FNS = {"": None, "_add": "add", "_sub": "sub", "_mul": "mul", "_div": "div", "_max": "maximum",
              "_min": "minimum", "_expdif": "expdif"}


def _expand_cases(prefix: str, suffix: str):
    def build(op: str, dt: np.dtype) -> list[Case]:
        e = edges(dt)
        if prefix == "row":  # t[i, j] = e[j], v[i] = e[i]: every pair
            t, v = grid(e)[1], e[:, None].copy()
        else:
            t, v = grid(e)[0], e[None, :].copy()
        vb = np.broadcast_to(v, t.shape)
        name = EXPAND_FNS[suffix]
        if name is None:
            return [op_case(op, [t, v], np.ascontiguousarray(vb))]
        if name == "expdif":  # the difference rounds in FP32, then exp
            want = to_float(_quiet(lambda a, b: np.exp(f32r(a - b)))(f64(t), f64(vb)), dt)
            return [op_case(op, [t, v], want, Tol(ulps=_ulps(dt)))]
        tol = EXACT_ZERO_SIGN_FREE if name in SIGN_FREE else EXACT
        return [op_case(op, [t, v], ref(name, t, np.ascontiguousarray(vb)), tol)]
    return build


for _p in ("row", "col"):
    for _s, _fn in EXPAND_FNS.items():
        _dts = FLOATS if _fn in ("div", "expdif") else FLOATS + (INT32, INT16)
        _doc = "the vector broadcast (the target's values are not read)" if _fn is None else \
            "exp(target - vector), the difference in FP32 (ulps)" if _fn == "expdif" else \
            f"target {BINARY_DOC[_fn]} with the vector broadcast"
        both(f"{_p}_expand{_s}", _dts, _expand_cases(_p, _s), f"value: {_doc}; all pairs of edge values")


# ------------------------------------------------------------------------------------------------
# select, three-input adds, activations with a slope, expands, partial arithmetic
# ------------------------------------------------------------------------------------------------

def _mask(dt: np.dtype) -> np.ndarray:
    rng = np.random.default_rng(5)
    m = rng.integers(0, 2, (N, N)).astype(np.float64)
    if is_float(dt):
        m[0, :8] = [math.nan, -0.0, 0.0, 2.5, -1.0, math.inf, 1e-3, 0.0]  # any non-zero picks, NaN too; -0 does not
    else:
        m[0, :4] = [-1, 0, 5, 0]
    return to_float(m, dt) if is_float(dt) else m.astype(dt)


def _sel_cases(op: str, dt: np.dtype) -> list[Case]:
    mask = _mask(dt)
    a, b = grid(edges(dt))
    pick = f64(mask) != 0
    if op.endswith("sels"):
        s = "2.5" if is_float(dt) else "7"
        want = np.where(pick, a, np.asarray(float(s) if is_float(dt) else int(s)).astype(dt))
        return [op_case(op, [mask, a, s], want.astype(dt))]
    return [op_case(op, [mask, a, b], np.where(pick, a, b).astype(dt))]


entry("tile.sel", FLOATS + (INT32,), lambda dt: _sel_cases("tile.sel", dt),
      "value: lhs where the mask is non-zero (NaN counts as non-zero, -0 as zero), rhs elsewhere; exact bytes")
entry("tile.sels", FLOATS + (INT32,), lambda dt: _sel_cases("tile.sels", dt),
      "value: the tile where the mask is non-zero, the scalar elsewhere")


def _three_cases(name: str):
    def build(op: str, dt: np.dtype) -> list[Case]:
        a, b = grid(edges(dt))
        c = np.roll(b, 3, axis=0).copy()
        s = ("1.5" if is_float(dt) else "7") if name in ("addsc", "subsc") else None
        if is_float(dt):  # two FP32 operations, left to right
            x, y, z = f64(a), (float(s) if s else f64(b)), f64(c)
            with np.errstate(all="ignore"):
                first = f32r(x + y) if name in ("addc", "addsc") else f32r(x - y)
                want = to_float(f32r(first + z), dt)
        else:
            x, y, z = obj(a), (int(s) if s else obj(b)), obj(c)
            want = wrap((x + y if name in ("addc", "addsc") else x - y) + z, dt)
        operands = [a, s, c] if s else [a, b, c]
        return [op_case(op, operands, want)]
    return build


for _n, _doc in (("addc", "src0 + src1 + src2"), ("subc", "src0 - src1 + src2"), ("addsc", "src0 + scalar + src1"),
                 ("subsc", "src0 - scalar + src1")):
    entry(f"tile.{_n}", FLOATS + (INT32, INT16), (lambda n: lambda dt: _three_cases(n)(f"tile.{n}", dt))(_n),
          f"value: {_doc}, two FP32 operations left to right (one rounding each; ints wrap)")


def _slope_cases(op: str, dt: np.dtype) -> list[Case]:
    a, b = grid(edges(dt))
    if op == "tile.lrelu":
        return [op_case(op, [a, "0.25"], float_ref(FLOAT_BINARY["prelu"], a, 0.25))]
    return [op_case(op, [a, b], float_ref(FLOAT_BINARY["prelu"], a, b))]


entry("tile.prelu", FLOATS, lambda dt: _slope_cases("tile.prelu", dt), "value: x where x > 0, else slope * x (slope tile)")
entry("tile.lrelu", FLOATS, lambda dt: _slope_cases("tile.lrelu", dt), "value: x where x > 0, else 0.25 * x")


def _expands_cases(op: str, dt: np.dtype) -> list[Case]:
    a = grid(edges(dt))[0]
    s = "2.5" if is_float(dt) else "-7"
    return [op_case(op, [a, s], np.full(a.shape, float(s) if is_float(dt) else int(s)).astype(dt))]


both("expands", FLOATS + INTS, _expands_cases, "value: every element set to the scalar (target values unread)")


PART = {"add": "add", "mul": "mul", "max": "maximum", "min": "minimum"}


def _part_cases(name: str):
    def build(op: str, dt: np.dtype) -> list[Case]:
        a, b = grid(edges(dt))
        small = b[:16, :16].copy()
        want = a.copy()
        want[:16, :16] = ref(PART[name], a[:16, :16].copy(), small)
        tol = EXACT_ZERO_SIGN_FREE if PART[name] in SIGN_FREE else EXACT
        return [op_case(op, [a, small], want, tol, label=f"{op}[big, small]"),
                op_case(op, [small, a], _part_swapped(name, small, a), tol, label=f"{op}[small, big]")]
    return build


def _part_swapped(name: str, small: np.ndarray, big: np.ndarray) -> np.ndarray:
    want = big.copy()
    want[:16, :16] = ref(PART[name], small, big[:16, :16].copy())
    return want


for _n in PART:
    both(f"part_{_n}", FLOATS + (INT32,), _part_cases(_n),
         f"value: {PART[_n]} on the smaller operand's region [0:16, 0:16], the larger operand elsewhere; both orders")


# ------------------------------------------------------------------------------------------------
# cube: the matmul family (operands in L1, the product in Acc; FP32 / INT32 accumulation)
# ------------------------------------------------------------------------------------------------

MM_DTYPES = (FP16, BF16, INT8)


def mm_operand(dt: np.dtype, shape, seed: int, specials: bool = False) -> np.ndarray:
    """Small integers and halves (every product and sum exact in FP32); with ``specials`` +inf, NaN and -0."""
    rng = np.random.default_rng(seed)
    if not is_float(dt):
        return rng.integers(-128, 128, shape).astype(dt)
    x = rng.integers(-8, 9, shape) * 0.5
    if specials:
        x[..., 0, 0] = math.inf
        x[..., 1, 5] = math.nan
        x[..., 2, :] = -0.0
    return to_float(x, dt)


def mm_ref(a: np.ndarray, b: np.ndarray, out: np.dtype, acc: np.ndarray | None = None) -> np.ndarray:
    if not is_float(a.dtype):
        r = np.einsum("...mk,...kn->...mn", obj(a), obj(b))
        r = r + (obj(acc) if acc is not None and not is_float(acc.dtype) else 0)
        if is_float(out):  # an integer product accumulated into a float result
            return to_float(r.astype(np.float64) + (f64(acc) if acc is not None else 0.0), out)
        return wrap(r, out)
    with np.errstate(all="ignore"):
        a64, b64 = f64(a), f64(b)
        r = np.sum(a64[..., :, :, None] * b64[..., None, :, :], axis=-2)  # exact: small integers and halves
        if acc is not None:
            r = r + f64(acc)
    return to_float(r, out)


def _acc_dt(dt: np.dtype) -> np.dtype:
    return FP32 if is_float(dt) else INT32


def _mm_kernel(ins: dict[str, np.ndarray], want: np.ndarray, body: list[str], label: str,
               tol: Tol = EXACT_ZERO_SIGN_FREE) -> Case:
    loads = [f"{n.replace('a', 'x', 1)} = pl.load({n}, {origin(a.ndim)}, {list(a.shape)}, target_memory=pl.Mem.Mat)"
             for n, a in ins.items()]
    body = loads + body + [f"pl.store(r, {origin(want.ndim)}, out)"]
    return Case(label, kernel(ins, {"out": (want.shape, want.dtype)}, body), ins, {"out": want}, tol)


def _matmul_cases(op: str, dt: np.dtype) -> list[Case]:
    name = op.split(".", 1)[1]
    acc_dt = _acc_dt(dt)
    m = 1 if name.startswith("gemv") else 16
    batch = (2,) if name.startswith("batch") else ()
    a = mm_operand(dt, batch + (m, 32), 1, specials=m > 2)
    b = mm_operand(dt, batch + (32, 16), 2)
    if name in ("matmul", "gemv", "batch_matmul"):
        return [_mm_kernel({"a0": a, "a1": b}, mm_ref(a, b, acc_dt), [f"r = pl.tile.{name}(x0, x1)"], op)]
    if name == "matmul_bias":
        bias = (mm_operand(dt, (1, 16), 3) if is_float(dt) else np.arange(-8, 8).reshape(1, 16)).astype(acc_dt)
        want = mm_ref(a, b, acc_dt, np.broadcast_to(bias, (m, 16)))
        ins = {"a0": a, "a1": b, "a2": bias}
        return [_mm_kernel(ins, want, ["r = pl.tile.matmul_bias(x0, x1, x2)"], op)]
    first = name.replace("_acc", "")  # the accumulator comes from the plain form
    a2, b2 = mm_operand(dt, a.shape, 4), mm_operand(dt, b.shape, 5)
    want = mm_ref(a, b, acc_dt, mm_ref(a2, b2, acc_dt))
    ins = {"a0": a2, "a1": b2, "a2": a, "a3": b}
    return [_mm_kernel(ins, want, [f"c = pl.tile.{first}(x0, x1)", f"r = pl.tile.{name}(c, x2, x3)"], op)]


for _n, _doc in (("matmul", "lhs @ rhs"), ("matmul_acc", "acc + lhs @ rhs"), ("matmul_bias", "lhs @ rhs + bias row"),
                 ("gemv", "[1, K] @ [K, N]"), ("gemv_acc", "acc + [1, K] @ [K, N]"),
                 ("batch_matmul", "per page lhs @ rhs"), ("batch_matmul_acc", "per page acc + lhs @ rhs")):
    entry(f"tile.{_n}", MM_DTYPES, (lambda n: lambda dt: _matmul_cases(f"tile.{n}", dt))(_n),
          f"value: {_doc}, FP32 (INT32 for INT8) accumulation; +inf / NaN / -0 operands propagate")


def _tensor_matmul_cases(op: str, dt: np.dtype) -> list[Case]:
    cases = []
    for a_t, b_t in ((False, False), (True, False), (False, True)):
        a = mm_operand(dt, (16, 32), 1, specials=True)
        b = mm_operand(dt, (32, 16), 2)
        a_in = np.ascontiguousarray(a.T) if a_t else a
        b_in = np.ascontiguousarray(b.T) if b_t else b
        flags = f"a_trans={a_t}, b_trans={b_t}"
        if op == "tensor.matmul":
            want = mm_ref(a, b, FP32)
            body = [f"out[:] = pl.tensor.matmul(a0, a1, out_dtype=pl.FP32, {flags})"]
            ins = {"a0": a_in, "a1": b_in}
        else:
            a2, b2 = mm_operand(dt, (16, 32), 4), mm_operand(dt, (32, 16), 5)  # the accumulator: a matmul's
            want = mm_ref(a, b, FP32, mm_ref(a2, b2, FP32))
            body = ["acc = pl.tensor.matmul(a2, a3, out_dtype=pl.FP32)",
                    f"out[:] = pl.tensor.matmul_acc(acc, a0, a1, {flags})"]
            ins = {"a0": a_in, "a1": b_in, "a2": a2, "a3": b2}
        cases.append(Case(f"{op}[{flags}]", kernel(ins, {"out": (want.shape, want.dtype)}, body), ins, {"out": want},
                          EXACT_ZERO_SIGN_FREE))
    return cases


entry("tensor.matmul", (FP16, BF16, INT8), lambda dt: _tensor_matmul_cases("tensor.matmul", dt),
      "value: lhs @ rhs in FP32, with a_trans / b_trans (operands stored transposed)")
entry("tensor.matmul_acc", (FP16, BF16, INT8), lambda dt: _tensor_matmul_cases("tensor.matmul_acc", dt),
      "value: acc + lhs @ rhs in FP32, with a_trans / b_trans")


# ------------------------------------------------------------------------------------------------
# data movement and views: the bytes themselves must arrive (NaN, -0, subnormals, every int pattern)
# ------------------------------------------------------------------------------------------------

ALL = FLOATS + INTS


def pattern(dt: np.dtype, shape, seed: int = 0) -> np.ndarray:
    """Edge values spread over ``shape`` (shuffled, so that a wrong window shows)."""
    rng = np.random.default_rng(seed)
    vals = edges(dt)
    out = rng.permutation(np.resize(vals, int(np.prod(shape)))).reshape(shape).astype(dt)
    if is_float(dt):  # a signalling NaN and a NaN with a payload: a copy must not quiet or canonicalise them
        bits = out.reshape(-1).view({4: np.uint32, 2: np.uint16}[dt.itemsize])
        bits[1], bits[2] = {FP32: (0x7F800001, 0xFFC01234), FP16: (0x7C01, 0xFE12), BF16: (0x7F81, 0xFFC3)}[dt]
    return out


def _src(ins, want, body, label, tol=BYTES, inout=(), **kw) -> Case:
    outs = {} if "out" in inout else {"out": (want.shape, want.dtype)}
    return Case(label, kernel(ins, outs, body, inout=inout), ins, {"out": want}, tol, **kw)


def _load_cases(dt):
    a = pattern(dt, (32, 64))
    cases = [_src({"a0": a}, a[4:12, 16:48].copy(), ["x = pl.load(a0, [4, 16], [8, 32])", "pl.store(x, [0, 0], out)"],
                  "tile.load[window]")]
    if dt in MM_DTYPES:  # transpose=True: the [N, K] window lands in L1 as the [K, N] rhs of a matmul
        cases.append(_transposed_operand_case(dt, "pl.load(a1, [0, 0], [16, 32], target_memory=pl.Mem.Mat, "
                                                  "transpose=True)", "tile.load[transpose]"))
    return cases


def _transposed_operand_case(dt, rhs: str, label: str) -> Case:
    """lhs @ rhs.T with the rhs stored [N, K] and transposed on its way into the cube (``rhs`` makes x1)."""
    a, b = mm_operand(dt, (16, 32), 1, specials=True), mm_operand(dt, (16, 32), 2)
    want = mm_ref(a, np.ascontiguousarray(b.T), _acc_dt(dt))
    body = ["x0 = pl.load(a0, [0, 0], [16, 32], target_memory=pl.Mem.Mat)", f"x1 = {rhs}",
            "r = pl.tile.matmul(x0, x1)", "pl.store(r, [0, 0], out)"]
    ins = {"a0": a, "a1": b}
    return Case(label, kernel(ins, {"out": (want.shape, want.dtype)}, body), ins, {"out": want}, EXACT_ZERO_SIGN_FREE)


def _store_cases(dt):
    t = pattern(dt, (8, 32), 1)
    base = pattern(dt, (32, 64), 2)
    want = base.copy()
    want[8:16, 32:64] = t
    cases = [_src({"a0": t, "out": base}, want, ["x = pl.load(a0, [0, 0], [8, 32])", "pl.store(x, [8, 32], out)"],
                  "tile.store[window]", inout=("out",))]
    if dt in (FP32, FP16, INT32):  # PyPTO's AtomicAddDtypeValid set: the store adds into GM
        t2 = grid(edges(dt))[0][:8, :32].copy()  # every edge value added to the old contents
        old = base[8:16, 32:64]
        with np.errstate(all="ignore"):
            added = to_float(f32r(f64(old) + f64(t2)), dt) if is_float(dt) else wrap(obj(old) + obj(t2), dt)
        want2 = base.copy()
        want2[8:16, 32:64] = added
        cases.append(_src({"a0": t2, "out": base}, want2,
                          ["x = pl.load(a0, [0, 0], [8, 32])", "pl.store(x, [8, 32], out, atomic=pl.AtomicType.Add)"],
                          "tile.store[atomic add]", tol=EXACT, inout=("out",)))
    return cases


entry("tile.load", ALL, _load_cases, "bytes: a [8, 32] window at [4, 16] of a tensor of edge values; transpose=True "
      "(matmul dtypes): a [16, 32] window loaded into L1 as [32, 16], the rhs of lhs @ rhs.T")
entry("tile.store", ALL, _store_cases, "bytes: the window [8:16, 32:64] replaced, the rest of the InOut tensor kept; "
      "atomic=Add (FP32 / FP16 / INT32): old + tile in FP32 (ints wrap)")


def _view_case(dt, op):
    a = pattern(dt, (32, 32), 3)
    if op == "tile.slice":
        return [_src({"a0": a}, a[4:12, 16:32].copy(),
                     ["x = pl.load(a0, [0, 0], [32, 32])", "pl.store(pl.tile.slice(x, [8, 16], [4, 16]), [0, 0], out)"],
                     op)]
    if op == "tile.extract":
        return [_src({"a0": a}, a[8:24, 0:16].copy(),
                     ["x = pl.load(a0, [0, 0], [32, 32])",
                      "pl.store(pl.tile.extract(x, 8, 0, shape=[16, 16], target_memory=pl.Mem.Vec), [0, 0], out)"], op)]
    if op == "tile.move":
        return [_src({"a0": a}, a.copy(),
                     ["x = pl.load(a0, [0, 0], [32, 32])",
                      "pl.store(pl.tile.move(x, target_memory=pl.Mem.Vec), [0, 0], out)"], "tile.move[Vec->Vec]")] + (
            [_transposed_operand_case(dt, "pl.tile.move(pl.load(a1, [0, 0], [16, 32], target_memory=pl.Mem.Mat), "
                                          "target_memory=pl.Mem.Right, transpose=True)", "tile.move[Mat->Right, transpose]")]
            if dt in MM_DTYPES else [])
    if op == "tile.reshape":
        return [_src({"a0": a}, a.reshape(64, 16).copy(),
                     ["x = pl.load(a0, [0, 0], [32, 32])", "pl.store(pl.tile.reshape(x, [64, 16]), [0, 0], out)"], op)]
    if op == "tile.transpose":
        b = pattern(dt, (16, 32), 4)
        return [_src({"a0": b}, np.ascontiguousarray(b.T),
                     ["x = pl.load(a0, [0, 0], [16, 32])", "pl.store(pl.tile.transpose(x, axis1=0, axis2=1), [0, 0], out)"],
                     op)]
    if op == "tile.reinterpret_view":
        # integers read as floats too: every bit pattern, NaN payloads and signalling NaNs included, must survive
        if dt == INT32:  # signalling / payload NaNs, -0 and a subnormal as FP32
            a = a.copy()
            a[0, :4] = np.array([0x7F800001, 0xFF800001, 0x7FC00001, 0x00000001], np.uint32).view(np.int32)
        if dt == INT16:  # the same as FP16 and as BF16
            a = a.copy()
            a[0, :5] = np.array([0x7C01, 0xFC01, 0x7F81, 0xFF81, 0x8000], np.uint16).view(np.int16)
        targets = {FP32: (INT32,), FP16: (INT16,), BF16: (INT16, FP16), INT32: (INT16, FP32), INT16: (INT8, FP16, BF16),
                   INT8: (INT16,)}[dt]
        return [_src({"a0": a}, np.ascontiguousarray(a).view(to).copy(),
                     ["x = pl.load(a0, [0, 0], [32, 32])",
                      f"pl.store(pl.tile.reinterpret_view(x, dtype=pl.{DT_NAME[to]}), [0, 0], out)"],
                     f"tile.reinterpret_view[->{DT_NAME[to]}]") for to in targets]
    raise KeyError(op)


for _op, _doc in (("tile.slice", "the [8, 16] window at [4, 16] of a Vec tile"),
                  ("tile.extract", "a [16, 16] window at (8, 0) of an L1 tile"),
                  ("tile.move", "a tile moved to Vec; transpose=True (matmul dtypes): an L1 [16, 32] "
                   "tile moved into Right as [32, 16]"), ("tile.reshape", "[32, 32] read as [64, 16], row-major"),
                  ("tile.transpose", "[16, 32] -> [32, 16]"),
                  ("tile.reinterpret_view", "the same bytes read as an integer type of another width")):
    entry(_op, ALL, (lambda o: lambda dt: _view_case(dt, o))(_op), f"bytes: {_doc}")


def _transpose_view_cases(dt):
    a, b = mm_operand(dt, (16, 32), 1, specials=True), mm_operand(dt, (16, 32), 2)  # b stored [N, K]
    want = mm_ref(a, np.ascontiguousarray(b.T), _acc_dt(dt))
    return [_mm_kernel({"a0": a, "a1": b}, want, ["r = pl.tile.matmul(x0, pl.tile.transpose_view(x1))"],
                       "tile.transpose_view")]


entry("tile.transpose_view", MM_DTYPES, _transpose_view_cases,
      "value: a [N, K] L1 tile read as [K, N] by the matmul (lhs @ rhs^T)")


def _pad_scalar(dt, pad: str):
    if pad == "zero":
        return 0
    if is_float(dt):
        return -math.inf if pad == "min" else math.inf
    lo, hi = int_min_max(dt)
    return lo if pad == "min" else hi


def _fillpad_cases(dt):
    a = pattern(dt, (32, 32), 6)
    cases = []
    for pad in ("zero", "min", "max"):
        want = np.full(a.shape, _pad_scalar(dt, pad)).astype(dt) if is_float(dt) else \
            np.full(a.shape, _pad_scalar(dt, pad), dtype=np.int64).astype(dt)
        want[:20, :24] = a[:20, :24]
        cases.append(_src({"a0": a}, want, ["x = pl.load(a0, [0, 0], [32, 32], valid_shapes=[20, 24])",
                                            f"pl.store(pl.tile.fillpad(x, pad_value=pl.PadValue.{pad}), [0, 0], out)"],
                          f"tile.fillpad[{pad}]"))
    return cases


def _set_validshape_cases(dt):
    a = pattern(dt, (32, 32), 7)
    want = np.zeros_like(a)
    want[:16, :8] = a[:16, :8]
    return [_src({"a0": a}, want, ["x = pl.load(a0, [0, 0], [32, 32])",
                                   "v = pl.tile.set_validshape(x, [16, 8])",
                                   "pl.store(pl.tile.fillpad(v, pad_value=pl.PadValue.zero), [0, 0], out)"],
                 "tile.set_validshape[16, 8]"),
            _src({"a0": a}, a.copy(), ["x = pl.load(a0, [0, 0], [32, 32])", "v = pl.tile.set_validshape(x, [32, 32])",
                                       "pl.store(pl.tile.fillpad(v, pad_value=pl.PadValue.max), [0, 0], out)"],
                 "tile.set_validshape[whole]")]


entry("tile.fillpad", ALL, _fillpad_cases,
      "bytes: the valid [20, 24] region kept, the rest 0 / lowest / highest (+-inf for floats, the int range ends)")
entry("tile.set_validshape", ALL, _set_validshape_cases,
      "bytes: the declared valid region ([16, 8], and the whole tile) survives a fillpad, the rest becomes padding")


# ------------------------------------------------------------------------------------------------
# creation and element access
# ------------------------------------------------------------------------------------------------

def _full_values(dt):
    if is_float(dt):  # FP16 overflow to inf, a BF16 tie (1 + 2^-8 -> 1), -0
        return ["2.5", "-0.0", "70000.0", "1.00390625", "-3.0e38"]
    lo, hi = int_min_max(dt)
    return ["-7", str(hi), str(lo)]


def _full_value(dt, v: str) -> np.ndarray:
    return to_float(np.array([float(v)]), dt)[0] if is_float(dt) else np.array([int(v)]).astype(dt)[0]


def _tile_full_cases(dt):
    cases = []
    for v in _full_values(dt):
        want = np.full((32, 32), _full_value(dt, v), dtype=dt)
        cases.append(_src({}, want, [f"pl.store(pl.tile.full([32, 32], dtype=pl.{DT_NAME[dt]}, value={v}), [0, 0], out)"],
                          f"tile.full[{v}]"))
    return cases


def _tensor_full_cases(dt):
    cases = []
    for v in _full_values(dt):
        want = np.full((32, 32), _full_value(dt, v), dtype=dt)
        cases.append(_src({}, want, [f"out[:] = pl.full([32, 32], dtype=pl.{DT_NAME[dt]}, value={v})"],
                          f"tensor.full[{v}]"))
    return cases


entry("tile.full", ALL, _tile_full_cases, "value: every element the constant, rounded to the dtype (FP16 overflow -> "
      "inf, BF16 ties to even, -0 kept)")
entry("tensor.full", ALL, _tensor_full_cases, "value: as tile.full, on a tensor")


def _tile_create_cases(dt):
    s = "2.5" if is_float(dt) else "-7"
    want = np.full((32, 16), float(s) if is_float(dt) else int(s)).astype(dt)
    return [_src({}, want, [f"t = pl.tile.create([32, 16], dtype=pl.{DT_NAME[dt]})",
                            f"pl.store(pl.tile.expands(t, {s}), [0, 0], out)"], "tile.create")]


entry("tile.create", ALL, _tile_create_cases,
      "shape and dtype only: a created tile's contents are undefined until written (reading them is rejected), so "
      "the case fills it with expands and checks the [32, 16] result", "no value semantics")


def _tensor_create_cases(dt):
    a = pattern(dt, (32, 32), 8)
    return [Case("tensor.create", _create_kernel(a, dt), {"a0": a}, {"out": a.copy()}, BYTES)]


def _create_kernel(a, dt) -> str:
    t = _ty(a.shape, dt)
    return (f"import tilefold.language as pl\n\n\n@pl.jit\ndef k(a0: {t}, out: pl.Out[{t}]):\n"
            f"    t = pl.create_tensor([32, 32], dtype=pl.{DT_NAME[dt]})\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n"
            f"        t = pl.assemble(t, a0, [0, 0])\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n"
            f"        out[:] = pl.tensor.slice(t, [32, 32], [0, 0])\n"
            f"    return out\n")


entry("tensor.create", ALL, _tensor_create_cases,
      "shape and dtype only: a fresh GM tensor holds what a first kernel writes into it and a second reads back "
      "(its initial contents are undefined)", "no value semantics")


def _tile_write_cases(dt):
    v = "-0.0" if is_float(dt) else "-7"
    want = np.full((32, 32), 1.5 if is_float(dt) else 3).astype(dt)
    want[3, 5] = float(v) if is_float(dt) else int(v)
    fill = "1.5" if is_float(dt) else "3"
    return [_src({}, want, [f"t = pl.tile.full([32, 32], dtype=pl.{DT_NAME[dt]}, value={fill})",
                            f"t = pl.write(t, [3, 5], {v})", "pl.store(t, [0, 0], out)"], "tile.write")]


entry("tile.write", ALL, _tile_write_cases, "bytes: one element [3, 5] of a Vec tile set, the others kept")


def _tensor_write_cases(dt):
    base = pattern(dt, (32, 32), 9)
    v = "-0.0" if is_float(dt) else "-7"
    want = base.copy()
    want[3, 5] = float(v) if is_float(dt) else int(v)
    return [_src({"out": base}, want, [f"pl.write(out, [3, 5], {v})"], "tensor.write", inout=("out",))]


def _tensor_read_cases(dt):
    a = pattern(dt, (32, 32), 10)
    return [_src({"a0": a}, np.full((32, 32), a[3, 5], dtype=dt), ["s = pl.read(a0, [3, 5])",
                                                                   "out[:] = pl.tensor.expands(a0, s)"], "tensor.read")]


entry("tensor.write", ALL, _tensor_write_cases, "bytes: one GM element [3, 5] set, the others kept")
entry("tensor.read", ALL, _tensor_read_cases, "bytes: the GM element [3, 5] read into a scalar and broadcast")


def _dump_tag_cases(dt):
    a = pattern(dt, (16, 32), 6)
    t = _ty(a.shape, a.dtype)
    src = ("import tilefold.language as pl\n\n\n@pl.jit\n"
           f"def k(a0: {t}, out: pl.Out[{t}]):\n"
           "    pl.dump_tag(a0)\n"
           "    with pl.at(level=pl.Level.CORE_GROUP, dumps=[out]):\n"
           "        pl.store(pl.load(a0, [0, 0], [16, 32]), [0, 0], out)\n"
           "    return out\n")
    return [Case("tensor.dump_tag", src, {"a0": a}, {"out": a.copy()}, BYTES)]


entry("tensor.dump_tag", ALL, _dump_tag_cases, "bytes: a tagged tensor (and a dumps= one) copied unchanged: a mark "
      "changes no value (tests/jit/test_dump_tag.py checks the dumps themselves)")


def _tensor_slice_cases(dt):
    a = pattern(dt, (32, 64), 11)
    return [_src({"a0": a}, a[8:24, 16:48].copy(), ["out[:] = pl.tensor.slice(a0, [16, 32], [8, 16])"],
                 "tensor.slice")]


def _assemble_cases(dt):
    a, base = pattern(dt, (16, 32), 12), pattern(dt, (32, 64), 13)
    want = base.copy()
    want[8:24, 32:64] = a
    cases = [_src({"a0": a, "out": base}, want, ["out = pl.assemble(out, a0, [8, 32])"], "tensor.assemble",
                  inout=("out",))]
    if dt in (FP32, FP16, INT32):
        old = base[8:24, 32:64]
        want2 = base.copy()
        with np.errstate(all="ignore"):
            want2[8:24, 32:64] = (to_float(f32r(f64(old) + f64(a)), dt) if is_float(dt)
                                  else wrap(obj(old) + obj(a), dt))
        cases.append(_src({"a0": a, "out": base}, want2, ["out = pl.assemble(out, a0, [8, 32], atomic=pl.AtomicType.Add)"],
                          "tensor.assemble[atomic add]", tol=EXACT, inout=("out",)))
    return cases


def _concat_cases(dt):
    a, b = pattern(dt, (32, 32), 14), pattern(dt, (32, 16), 15)
    return [_src({"a0": a, "a1": b}, np.concatenate([a, b], axis=1), ["out[:] = pl.concat(a0, a1)"], "tensor.concat")]


def _tensor_transpose_cases(dt):
    a = pattern(dt, (16, 32), 16)
    return [_src({"a0": a}, np.ascontiguousarray(a.T), ["out[:] = pl.transpose(a0, 0, 1)"], "tensor.transpose")]


entry("tensor.slice", ALL, _tensor_slice_cases, "bytes: the [16, 32] window at [8, 16]")
entry("tensor.assemble", ALL, _assemble_cases, "bytes: the value written at [8, 32] of the InOut target, the rest kept; "
      "atomic=Add: old + value in FP32 (ints wrap)")
entry("tensor.concat", ALL, _concat_cases, "bytes: [32, 32] and [32, 16] joined along columns")
entry("tensor.transpose", ALL, _tensor_transpose_cases, "bytes: [16, 32] -> [32, 16]")


# ------------------------------------------------------------------------------------------------
# block identity (no golden formula in the registry: the interpreter and the simulator supply the indices)
# ------------------------------------------------------------------------------------------------

_BLOCK_KERNEL = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV, attrs={{"block_dim": 2}})
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        sb = pl.tile.get_subblock_idx()
        n = pl.tile.get_block_num()
        row = b * 16 + sb * 8
        t = pl.tile.load(x, [row, 0], [8, 64])
        out = pl.store(pl.tile.adds(t, {expr}), [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        out = self.kernel(x, out)
        return out
'''


def _block_cases(op: str):
    def build(dt):
        rows = np.arange(32)
        block, sub = rows // 16, (rows // 8) % 2  # rows [16 b + 8 sb, +8) belong to block b, sub-block sb
        value = (block * 100 + sub * 10 + 2).astype(np.float32)  # block_num is 2
        want = np.ascontiguousarray(np.broadcast_to(value[:, None], (32, 64)))
        return [Case(op, _BLOCK_KERNEL.format(expr="b * 100 + sb * 10 + n"), {"x": np.zeros((32, 64), np.float32)},
                     {"out": want}, EXACT)]
    return build


for _op in ("tile.get_block_idx", "tile.get_subblock_idx", "tile.get_block_num"):
    entry(_op, (FP32,), _block_cases(_op), "value: 2 blocks x 2 sub-blocks each write b * 100 + sb * 10 + "
          "block_num into their own 8 rows", "no golden formula: the indices come from the launch")


# ------------------------------------------------------------------------------------------------
# multi-block system ops (no golden formula: device geometry from the target, a barrier orders the blocks)
# ------------------------------------------------------------------------------------------------

_SYSTEM_KERNEL = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[24, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[24, 64], pl.FP32]],
               out: pl.Out[pl.Tensor[[24, 64], pl.FP32]]) -> pl.Tensor[[24, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        na = pl.system.available_aiv_count()
        nc = pl.system.available_cluster_count()
        t = pl.tile.load(x, [b, 0], [1, 64])
        mid = pl.store(pl.tile.adds(t, na * 10 + nc), [b, 0], mid)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type="mix")
        pl.system.cacheinvalid()
        pl.system.cacheinvalid(mid, [(b + 1) % 24, 0])
        nxt = pl.tile.load(mid, [(b + 1) % 24, 0], [1, 64])
        out = pl.store(pl.tile.sub(nxt, t), [b, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[24, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[24, 64], pl.FP32]],
             out: pl.Out[pl.Tensor[[24, 64], pl.FP32]]) -> pl.Tensor[[24, 64], pl.FP32]:
        with pl.spmd(pl.system.available_cluster_count()):
            out = self.kernel(x, mid, out)
        return out
'''


def _system_cases(op: str):
    def build(dt):
        x = (np.arange(24 * 64, dtype=np.float32).reshape(24, 64) % 97) / 8  # exact in FP32
        mid = x + np.float32(48 * 10 + 24)  # 48 AIV cores, 24 clusters on both targets
        out = np.roll(mid, -1, axis=0) - x  # block b reads the row block b + 1 stored before the barrier
        return [Case(op, _SYSTEM_KERNEL, {"x": x, "mid": np.zeros_like(x)}, {"mid": mid, "out": out}, EXACT)]
    return build


for _op in ("system.available_aiv_count", "system.available_cluster_count", "system.syncall", "system.fence",
            "system.cacheinvalid"):
    entry(_op, (FP32,), _system_cases(_op), "value: 24 blocks (available_cluster_count) store x + 48 * 10 + 24 "
          "(the device counts), then after the publish / fence / barrier / invalidate sequence each reads the row "
          "the next block stored", "no golden formula: the counts come from the target, the barrier orders blocks")


# ------------------------------------------------------------------------------------------------
# in-kernel pipe syncs (no golden formula: they order pipes and change no value)
# ------------------------------------------------------------------------------------------------

_PIPE_SYNC_KERNEL = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
               mm: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        d = pl.tile.adds(t, 1.0)
        pl.system.bar_v()
        m = pl.matmul(pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat),
                      pl.tile.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat))
        pl.system.bar_m()
        mm = pl.store(m, [0, 0], mm)
        pl.system.bar_all()
        out = pl.store(d, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
             mm: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.kernel(x, w, mm, out)
        return out
'''


def _pipe_sync_cases(op: str):
    def build(dt):
        x = (np.arange(16 * 64, dtype=np.float32).reshape(16, 64) % 7) / 4  # exact in FP32
        w = (np.arange(64 * 64, dtype=np.float32).reshape(64, 64) % 5) / 8
        mm = (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float32)  # exact: small multiples of 1/32
        return [Case(op, _PIPE_SYNC_KERNEL, {"x": x, "w": w}, {"mm": mm, "out": x + 1}, EXACT)]
    return build


for _op in ("system.sync_src", "system.sync_dst", "system.bar_v", "system.bar_m", "system.bar_all"):
    entry(_op, (FP32,), _pipe_sync_cases(_op), "value: a mixed (vector + cube) kernel with an MTE2 -> V event pair "
          "and the V / M / ALL pipe barriers gives x + 1 and x @ w, as without them",
          "no golden formula: a pipe sync orders pipes and changes no value")


# ------------------------------------------------------------------------------------------------
# custom kernels: the registry passes the user's kernel through (its values are the user's function)
# ------------------------------------------------------------------------------------------------

def _affine(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (x * np.float32(2.0) + np.float32(1.0)).astype(np.float32)


def _custom_cases(op: str):
    def build(dt):
        x = float_edges(FP32).reshape(1, 32).repeat(8, axis=0)
        with np.errstate(all="ignore"):
            want = to_float(f64(x) * 2.0 + 1.0, FP32)
        spell = "custom_macro" if op.endswith("macro") else "custom"
        body = ["x = pl.load(a0, [0, 0], [8, 32])", "init = pl.tile.create([8, 32], dtype=pl.FP32)",
                f'r = pl.tile.{spell}("reference.affine", ins=[x], outs=[init], no_side_effect=True)',
                "pl.store(r, [0, 0], out)"]
        return [Case(op, kernel({"a0": x}, {"out": (want.shape, want.dtype)}, body), {"a0": x}, {"out": want},
                     EXACT, custom_kernels={"reference.affine": _affine})]
    return build


for _op in ("tile.custom", "tile.custom_macro"):
    entry(_op, (FP32,), _custom_cases(_op), "value: the registered kernel's result (x * 2 + 1 on edge values) lands in "
          "the outs", "no golden formula: the user's kernel is the semantics")


BOTH_TARGETS = ("Ascend910B", "Ascend950")
for _op, _e in TABLE.items():
    if _e.op.endswith(".cast") or "matmul" in _op or "gemv" in _op or _op == "tile.transpose_view":
        _e.targets = BOTH_TARGETS


# ------------------------------------------------------------------------------------------------
# tile forms of concat / assemble, and the scalar read of a tile element (issue 19)
# ------------------------------------------------------------------------------------------------


def _tile_concat_cases(dt):
    a, b = pattern(dt, (32, 32), 21), pattern(dt, (32, 16), 22)
    return [_src({"a0": a, "a1": b}, np.concatenate([a, b], axis=1),
                 ["x = pl.load(a0, [0, 0], [32, 32])", "y = pl.load(a1, [0, 0], [32, 16])",
                  "pl.store(pl.tile.concat(x, y), [0, 0], out)"], "tile.concat")]


def _tile_assemble_cases(dt):
    a, v = pattern(dt, (32, 32), 23), pattern(dt, (8, 16), 24)
    want = a.copy()
    want[8:16, 16:32] = v
    return [_src({"a0": a, "a1": v}, want,
                 ["x = pl.load(a0, [0, 0], [32, 32])", "y = pl.load(a1, [0, 0], [8, 16])",
                  "pl.store(pl.tile.assemble(x, y, [8, 16]), [0, 0], out)"], "tile.assemble")]


def _tile_read_cases(dt):
    a = pattern(dt, (32, 32), 25)
    fill = "1.5" if is_float(dt) else "3"
    want = np.full((32, 32), 1.5 if is_float(dt) else 3).astype(dt)
    want[0, 0] = a[3, 5]
    return [_src({"a0": a}, want, ["x = pl.load(a0, [0, 0], [32, 32])", "s = pl.tile.read(x, [3, 5])",
                                   f"t = pl.tile.full([32, 32], dtype=pl.{DT_NAME[dt]}, value={fill})",
                                   "t = pl.write(t, [0, 0], s)", "pl.store(t, [0, 0], out)"], "tile.read",
                 tol=EXACT)]


entry("tile.concat", ALL, _tile_concat_cases, "bytes: [32, 32] and [32, 16] tiles joined along columns")
entry("tile.assemble", ALL, _tile_assemble_cases, "bytes: an [8, 16] tile written at [8, 16] of a [32, 32] tile")
entry("tile.read", ALL, _tile_read_cases, "the element [3, 5] of a Vec tile read into a scalar and written back")


# ------------------------------------------------------------------------------------------------
# index and generator ops (issue 19): written from their stated semantics with Python loops / plain numpy
# ------------------------------------------------------------------------------------------------

_M64 = (1 << 64) - 1


def _splitmix64(x: int) -> int:
    """The splitmix64 finaliser, on Python ints (the published constants of Steele, Lea and Flood)."""
    x = (x + 0x9E3779B97F4A7C15) & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


_FRACTION_BITS = {FP32: 24, FP16: 11, BF16: 8}


def _random_ref(shape, dt, seed: int) -> np.ndarray:
    n = int(np.prod(shape))
    words = [_splitmix64((seed << 32) + k) for k in range(n)]
    if is_float(dt):
        w = _FRACTION_BITS[dt]
        return to_float(np.array([(z >> (64 - w)) / 2.0 ** w for z in words]), dt).reshape(shape)
    bits = dt.itemsize * 8
    return wrap(np.array([z & ((1 << bits) - 1) for z in words], dtype=object), dt).reshape(shape)


def _random_cases(op: str, dt) -> list[Case]:
    name = DT_NAME[dt]
    cases = []
    for seed in (0, 12345):
        want = _random_ref((16, 32), dt, seed)
        call = f"pl.{op}([16, 32], dtype=pl.{name}, seed={seed})"
        body = [f"out[:] = {call}"] if op.startswith("tensor.") else [f"pl.store({call}, [0, 0], out)"]
        cases.append(_src({}, want, body, f"{op}[seed {seed}]", tol=EXACT))
    return cases


def _ci_cases(op: str, dt) -> list[Case]:
    name = DT_NAME[dt]
    lo, hi = int_min_max(dt)
    cases = []
    for start, desc in ((5, False), (hi - 100, False), (lo + 100, True)):  # the last two wrap around
        want = wrap(np.array([start + (-k if desc else k) for k in range(8 * 32)], dtype=object), dt).reshape(8, 32)
        call = f"pl.{op}({start}, [8, 32], dtype=pl.{name}, descending={desc})"
        body = [f"out[:] = {call}"] if op.startswith("tensor.") else [f"pl.store({call}, [0, 0], out)"]
        cases.append(_src({}, want, body, f"{op}[{start}, descending={desc}]", tol=EXACT))
    return cases


def _structure(value, index: int, dt) -> list:
    """The 8 bytes PTO's sort instructions keep per element, as elements of the value dtype: FP32 [value, index
    bits]; FP16 [value, 0, index low 16 bits, index high 16 bits]."""
    if dt == FP32:
        return [np.float32(value), np.array([index], np.uint32).view(np.float32)[0]]
    halves = np.array([index & 0xFFFF, index >> 16], np.uint16).view(np.float16)
    return [np.float16(value), np.float16(0.0), halves[0], halves[1]]


def _sorted_row(values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """One row's 32-element blocks sorted descending (ties by position, NaN last) as sort structures."""
    out = []
    for b in range(0, len(values), 32):
        block = [(float(values[b + t]), t) for t in range(32)]
        order = sorted(block, key=lambda vt: (1, 0.0, vt[1]) if math.isnan(vt[0]) else (0, -vt[0], vt[1]))
        for _, t in order:
            out += _structure(values[b + t], int(indices[b + t]), values.dtype)
    return np.array(out, values.dtype)


def _sort32_cases(op: str, dt) -> list[Case]:
    vals = pattern(dt, (2, 64), 31)
    vals[0, :8] = [1.0, 1.0, -0.0, 0.0, 2.5, 2.5, -1.0, 1.0]  # ties keep index order
    idx = (np.arange(128, dtype=np.int64).reshape(2, 64) * 7 + 3).astype(np.int32)
    want = np.stack([_sorted_row(vals[r], idx[r]) for r in range(2)])
    call = f"pl.{op}(x, i)" if op.startswith("tile.") else f"pl.{op}(a0, a1)"
    body = (["x = pl.load(a0, [0, 0], [2, 64])", "i = pl.load(a1, [0, 0], [2, 64])", f"pl.store({call}, [0, 0], out)"]
            if op.startswith("tile.") else [f"out[:] = {call}"])
    return [_src({"a0": vals, "a1": idx}, want, body, op)]


def _merge_ref(row: np.ndarray, block: int, stride: int) -> np.ndarray:
    """Groups of 4 runs of ``block`` structures merged: repeatedly take the largest run head (the earliest run on a
    tie)."""
    items = [tuple(row[stride * k:stride * (k + 1)]) for k in range(len(row) // stride)]
    out = []
    for g in range(0, len(items), 4 * block):
        runs = [items[g + r * block:g + (r + 1) * block] for r in range(4) if g + r * block < len(items)]
        heads = [0] * len(runs)
        while any(h < len(run) for h, run in zip(heads, runs, strict=True)):
            best = None
            for r, run in enumerate(runs):
                if heads[r] < len(run) and (best is None or run[heads[r]][0] > runs[best][heads[best]][0]):
                    best = r
            out.extend(runs[best][heads[best]])
            heads[best] += 1
    return np.array(out, row.dtype)


def _mrgsort_cases(op: str, dt) -> list[Case]:
    rng = np.random.default_rng(32)
    block, stride = 8, 2 if dt == FP32 else 4
    rows = []
    for sign in (1, -1):  # 8 runs of 8 structures per row: two merge groups; integer values: ties across runs
        row = []
        for _ in range(8):
            for v in np.sort(sign * rng.integers(-6, 6, block))[::-1]:
                row += _structure(v, int(rng.integers(0, 70000)), dt)
        rows.append(np.array(row, dt))
    src = np.stack(rows)
    want = np.stack([_merge_ref(src[r], block, stride) for r in range(2)])
    cols = src.shape[1]
    call = f"pl.{op}(x, block_len={block})" if op.startswith("tile.") else f"pl.{op}(a0, block_len={block})"
    body = [f"x = pl.load(a0, [0, 0], [2, {cols}])", f"pl.store({call}, [0, 0], out)"] if op.startswith("tile.") \
        else [f"out[:] = {call}"]
    return [_src({"a0": src}, want, body, op)]


def _indexed_body(op: str, loads: list[tuple[str, str, tuple[int, ...]]], call: str) -> list[str]:
    if op.startswith("tensor."):
        return [f"out[:] = pl.{op}({call.format(**{v: a for v, a, _ in loads})})"]
    body = [f"{v} = pl.load({a}, [0, 0], {list(s)})" for v, a, s in loads]
    return body + [f"pl.store(pl.{op}({call.format(**{v: v for v, _, _ in loads})}), [0, 0], out)"]


def _gather_cases(op: str, dt) -> list[Case]:
    src = pattern(dt, (16, 32), 33)
    cases = []
    for dim in (0, 1):
        rng = np.random.default_rng(34 + dim)
        shape = (8, 32) if dim == 0 else (16, 8)
        idx = rng.integers(0, src.shape[dim], shape).astype(np.int32)
        want = np.empty(shape, dt)
        for i in range(shape[0]):
            for j in range(shape[1]):
                want[i, j] = src[idx[i, j], j] if dim == 0 else src[i, idx[i, j]]
        body = _indexed_body(op, [("x", "a0", src.shape), ("i", "a1", shape)], f"{{x}}, {dim}, {{i}}")
        cases.append(_src({"a0": src, "a1": idx}, want, body, f"{op}[dim {dim}]"))
    return cases


def _scatter_cases(op: str, dt) -> list[Case]:
    base, src = pattern(dt, (16, 32), 35), pattern(dt, (8, 32), 36)
    cases = []
    for dim in (0, 1):
        rng = np.random.default_rng(37 + dim)
        shape = (8, 32) if dim == 0 else (8, 16)
        idx = rng.integers(0, base.shape[dim], shape).astype(np.int32)  # repeats: the later write stays
        want = base.copy()
        for i in range(shape[0]):
            for j in range(shape[1]):
                if dim == 0:
                    want[idx[i, j], j] = src[i, j]
                else:
                    want[i, idx[i, j]] = src[i, j]
        body = _indexed_body(op, [("x", "a0", base.shape), ("i", "a1", shape), ("s", "a2", src.shape)],
                             f"{{x}}, {dim}, {{i}}, {{s}}")
        cases.append(_src({"a0": base, "a1": idx, "a2": src}, want, body, f"{op}[dim {dim}]"))
    return cases


def _scatter_update_cases(op: str, dt) -> list[Case]:
    base, src = pattern(dt, (16, 32), 38), pattern(dt, (8, 32), 39)
    idx = np.array([[3, 0, 15, 7], [3, 9, 1, 0]], np.int32)  # rows 3 and 0 written twice: the later row stays
    want = base.copy()
    for k, r in enumerate(idx.ravel()):
        want[r, :] = src[k, :]
    body = _indexed_body(op, [("x", "a0", base.shape), ("i", "a1", idx.shape), ("s", "a2", src.shape)],
                         "{x}, -2, {i}, {s}")
    return [_src({"a0": base, "a1": idx, "a2": src}, want, body, op)]


def _expand_clone_cases(op: str, dt) -> list[Case]:
    cases = []
    for shape in ((1, 32), (16, 1), (16, 32)):
        src = pattern(dt, shape, 40)
        want = np.empty((16, 32), dt)
        for i in range(16):
            for j in range(32):
                want[i, j] = src[i if shape[0] > 1 else 0, j if shape[1] > 1 else 0]
        body = _indexed_body(op, [("x", "a0", shape)], "{x}, [16, 32]")
        cases.append(_src({"a0": src}, want, body, f"{op}[{list(shape)}]"))
    return cases


def _fillpad_expand_cases(dt) -> list[Case]:
    a = pattern(dt, (16, 32), 41)
    cases = []
    for pad in ("zero", "min", "max"):
        for valid in ((16, 32), (9, 20)):
            fill = _pad_scalar(dt, pad)
            want = (np.full((32, 64), fill).astype(dt) if is_float(dt)
                    else np.full((32, 64), fill, dtype=np.int64).astype(dt))
            want[:valid[0], :valid[1]] = a[:valid[0], :valid[1]]
            load = ("x = pl.load(a0, [0, 0], [16, 32])" if valid == (16, 32)
                    else f"x = pl.load(a0, [0, 0], [16, 32], valid_shapes={list(valid)})")
            cases.append(_src({"a0": a}, want, [load, "pl.store(pl.tile.fillpad_expand(x, [32, 64], pad_value="
                                                      f"pl.PadValue.{pad}), [0, 0], out)"],
                              f"tile.fillpad_expand[{pad}, valid {list(valid)}]"))
    return cases


def _mgather_cases(dt) -> list[Case]:
    table = pattern(dt, (32, 16), 42)
    cases = []
    for policy, idx in (("error", [3, 1, 31, 0, 3, 7, 8, 2]), ("zero", [3, -1, 31, 32, 40, 7, 0, 2]),
                        ("clamp", [3, -5, 31, 32, 40, 7, 0, 2])):
        want = np.zeros((8, 16), dt)
        for k, r in enumerate(idx):
            if policy == "clamp":
                r = min(max(r, 0), 31)
            if 0 <= r < 32:
                want[k] = table[r]
        index = np.array(idx, np.int32).reshape(8, 1)
        option = "" if policy == "error" else f", gather_oob={policy!r}"
        cases.append(_src({"a0": table, "a1": index}, want, ["i = pl.load(a1, [0, 0], [8, 1])",
                                                              f"pl.store(pl.tile.mgather(a0, i{option}), [0, 0], out)"],
                          f"tile.mgather[{policy}]"))
    return cases


def _mscatter_cases(dt) -> list[Case]:
    base, src = pattern(dt, (32, 16), 43), pattern(dt, (8, 16), 44)
    idx = [5, -1, 31, 0, 5, 12, -7, 2]  # negative: masked; row 5 twice: the later row stays
    want = base.copy()
    for k, r in enumerate(idx):
        if r >= 0:
            want[r] = src[k]
    index = np.array(idx, np.int32).reshape(8, 1)
    return [_src({"a0": src, "a1": index, "out": base}, want,
                 ["x = pl.load(a0, [0, 0], [8, 16])", "i = pl.load(a1, [0, 0], [8, 1])",
                  "pl.tile.mscatter(x, i, out)"], "tile.mscatter", inout=("out",))]


def _prefetch_cases(dt) -> list[Case]:
    a = pattern(dt, (32, 32), 45)
    return [_src({"a0": a}, a.copy(), ["pl.tile.prefetch(a0, [0, 0], [32, 32])", "x = pl.load(a0, [0, 0], [32, 32])",
                                       "pl.store(x, [0, 0], out)"], "tile.prefetch")]


def _gather_row_cases(dt) -> list[Case]:
    """Rows of a GM tensor DMA'd into regions of a Vec accumulator loaded from ``base``; the other rows keep
    their bytes. Three writes: one whole row, a two-row window of which valid_shape moves one row and 20
    columns, and a window whose declared shape overhangs the accumulator (rows 6..9 of 8) but whose valid
    extent (2 rows) fits."""
    base, src = pattern(dt, (8, 32), 46), pattern(dt, (24, 32), 47)
    want = base.copy()
    want[3, :] = src[17, :]
    want[0, 0:20] = src[5, 4:24]
    want[6:8, :] = src[10:12, :]
    body = ["acc = pl.load(a0, [0, 0], [8, 32])",
            "acc = pl.tile.gather_row(acc, a1, [3, 0], [17, 0], [1, 32])",
            "acc = pl.tile.gather_row(acc, a1, [0, 0], [5, 4], [2, 28], valid_shape=[1, 20])",
            "acc = pl.tile.gather_row(acc, a1, [6, 0], [10, 0], [4, 32], valid_shape=[2, 32])",
            "pl.store(acc, [0, 0], out)"]
    return [_src({"a0": base, "a1": src}, want, body, "tile.gather_row[Vec]")]


def _tensor_gather_row_cases(dt) -> list[Case]:
    """The tensor form on a Vec accumulator (a pl.full result): two rows and a valid-shape sub-window."""
    src = pattern(dt, (24, 32), 50)
    want = np.zeros((8, 32), dt)
    want[5, :] = src[2, :]
    want[1, 0:16] = src[20, 8:24]
    body = [f"acc = pl.full([8, 32], dtype=pl.{DT_NAME[dt]}, value=0)",
            "acc = pl.gather_row(acc, a0, [5, 0], [2, 0], [1, 32])",
            "acc = pl.tensor.gather_row(acc, a0, [1, 0], [20, 8], [1, 24], valid_shape=[1, 16])",
            "out[:] = acc"]
    return [_src({"a0": src}, want, body, "tensor.gather_row[Vec]")]


def _paged_inputs(dt, cols: int):
    pool = mm_operand(dt, (64, cols), 51)
    table = np.array([2, 0, 3, 1], np.int32)
    idx = np.random.default_rng(52).permutation(64)[:16].astype(np.int32)
    return pool, table, idx, table[idx // 16] * 16 + idx % 16


def _create_l1_cases(dt) -> list[Case]:
    """An L1 accumulator filled row by row through a block table, read by a b_trans matmul (q @ kv^T)."""
    pool, table, idx, phys = _paged_inputs(dt, 32)
    q = mm_operand(dt, (16, 32), 53)
    body = [f"kv = pl.create_l1([16, 32], pl.{DT_NAME[dt]})",
            "for i in pl.range(16):",
            "    t = pl.read(a3, [i])",
            "    blk = pl.read(a2, [t // 16])",
            "    kv = pl.gather_row(kv, a1, [i, 0], [blk * 16 + t % 16, 0], [1, 32])",
            f"out[:] = pl.matmul(a0, kv, b_trans=True, out_dtype=pl.{DT_NAME[_acc_dt(dt)]})"]
    want = mm_ref(q, np.ascontiguousarray(pool[phys].T), _acc_dt(dt))
    return [_src({"a0": q, "a1": pool, "a2": table, "a3": idx}, want, body, "tensor.create_l1", tol=EXACT_ZERO_SIGN_FREE)]


def _paged_gather_cases(dt) -> list[Case]:
    """Rows of a paged pool through a block table: into UB (every dtype, stored as gathered) and, for the cube
    dtypes, into L1 (natural and is_trans) read by a matmul."""
    pool, table, idx, phys = _paged_inputs(dt, 48) if dt in MM_DTYPES else (None,) * 4
    if pool is None:
        pool = pattern(dt, (64, 48), 54)
        table = np.array([2, 0, 3, 1], np.int32)
        idx = np.random.default_rng(52).permutation(64)[:16].astype(np.int32)
        phys = table[idx // 16] * 16 + idx % 16
    ins = {"a0": pool, "a1": idx, "a2": table}
    cases = [_src(ins, pool[phys, 8:40].copy(), ["out[:] = pl.paged_gather(a0, a1, a2, block_size=16, size=32, "
                                                 "col_offset=8, target_memory=pl.Mem.Vec)"], "tensor.paged_gather[Vec]")]
    if dt in MM_DTYPES:
        q = mm_operand(dt, (16, 32), 55)
        want = mm_ref(q, np.ascontiguousarray(pool[phys, 8:40].T), _acc_dt(dt))
        acc = DT_NAME[_acc_dt(dt)]
        for trans, mm in ((False, "b_trans=True, "), (True, "")):
            body = [f"kv = pl.paged_gather(a0, a1, a2, block_size=16, size=32, col_offset=8, is_trans={trans})",
                    f"out[:] = pl.matmul(a3, kv, {mm}out_dtype=pl.{acc})"]
            cases.append(_src({**ins, "a3": q}, want, body, f"tensor.paged_gather[Mat, is_trans={trans}]",
                              tol=EXACT_ZERO_SIGN_FREE))
    return cases


def _gatherb_cases(dt) -> list[Case]:
    """32-byte blocks of a [16, 32] tile by byte offset (any multiple of 32 inside its bytes, repeats allowed)."""
    src = pattern(dt, (16, 32), 48)
    raw = src.reshape(-1).view(np.uint8)
    nblocks = raw.size // 32
    rng = np.random.default_rng(49)
    offs = (rng.integers(0, nblocks, (8, 4)) * 32).astype(np.uint32)
    offs[0, 0], offs[0, 1] = 0, (nblocks - 1) * 32  # the first and the last block
    per = 32 // dt.itemsize
    want = np.empty((8, 4 * per), dt)
    for i in range(8):
        for j in range(4):
            o = int(offs[i, j])
            want[i, j * per:(j + 1) * per] = raw[o:o + 32].view(dt)
    body = ["x = pl.load(a0, [0, 0], [16, 32])", "o = pl.load(a1, [0, 0], [8, 4])",
            "pl.store(pl.tile.gatherb(x, o), [0, 0], out)"]
    return [_src({"a0": src, "a1": offs}, want, body, "tile.gatherb")]


both("random", (FP32, FP16, BF16, INT32, INT8), _random_cases,
     "value: element k = splitmix64(seed * 2**32 + k), top mantissa bits as a fraction in [0, 1) for floats, low "
     "bits for integers; two seeds")
both("ci", INTS, _ci_cases, "value: start + k (descending: start - k) in row-major order, wrapping in the dtype")
both("sort32", (FP32, FP16), _sort32_cases,
     "bytes: 32-element blocks sorted descending (ties by position, -0 == 0, NaN last), 8-byte (value, index) "
     "structures (FP16: value, 0, index halves)")
both("mrgsort", (FP32, FP16), _mrgsort_cases, "bytes: groups of 4 sorted runs of (value, index) structures merged, "
                                              "ties to the earlier run")
both("gather", ALL, _gather_cases, "bytes: out[i, j] = src[index[i, j], j] (dim 0) / src[i, index[i, j]] (dim 1)")
both("scatter", ALL, _scatter_cases, "bytes: input[index[i, j], j] / input[i, index[i, j]] = src[i, j], repeated "
                                     "indices: the later (row-major) write stays")
both("scatter_update", ALL, _scatter_update_cases,
     "bytes: input[index.flat[k], :] = src[k, :], repeated rows: the later k stays")
both("expand_clone", ALL, _expand_clone_cases, "bytes: [1, 32], [16, 1] and [16, 32] broadcast to [16, 32]")
entry("tile.fillpad_expand", ALL, _fillpad_expand_cases,
      "bytes: the valid region ([16, 32] and a partial [9, 20]) at [0, 0] of a [32, 64] tile, the rest the pad value")
entry("tile.mgather", ALL, _mgather_cases, "bytes: rows of a GM tensor by an [8, 1] index tile; gather_oob error "
                                           "(in range), zero and clamp (indices -5, -1, 32, 40)")
entry("tile.mscatter", ALL, _mscatter_cases, "bytes: rows of a tile into GM rows by index; negative masks, a repeated "
                                             "row keeps the later write")
entry("tile.prefetch", ALL, _prefetch_cases, "bytes: a prefetch changes nothing; the window loaded after it arrives")
entry("tile.gather_row", ALL, _gather_row_cases,
      "bytes: GM windows written into rows of a Vec tile at dst offsets, the rest unchanged; valid_shape moves a "
      "sub-window; a declared window overhanging the tile with a valid extent that fits")
entry("tile.gatherb", ALL, _gatherb_cases, "bytes: 32-byte blocks of a tile's row-major bytes at UINT32 byte offsets "
                                           "(first, last and repeated blocks)")
entry("tensor.gather_row", ALL, _tensor_gather_row_cases,
      "bytes: the tensor form into a pl.full accumulator, with and without valid_shape")
entry("tensor.create_l1", MM_DTYPES, _create_l1_cases,
      "value: an L1 accumulator filled by gather_row through a block table, read by q @ kv^T")
entry("tensor.paged_gather", ALL, _paged_gather_cases,
      "bytes (UB, every dtype) and value (L1 natural and is_trans, through a matmul): rows block_table[i // 16] * 16 "
      "+ i % 16 of a pool, columns 8..40")


# ------------------------------------------------------------------------------------------------
# tri, MX matmuls (issue 19)
# ------------------------------------------------------------------------------------------------

def _tri_ref(shape, upper: bool, diagonal: int, dt) -> np.ndarray:
    rows, cols = shape
    return np.array([[1 if ((j - i >= diagonal) if upper else (j - i <= diagonal)) else 0 for j in range(cols)]
                     for i in range(rows)]).astype(dt)


def _tri_cases(op: str, dt) -> list[Case]:
    cases = []
    for upper, diagonal in ((False, 0), (True, 3), (False, -6), (True, -20)):
        want = _tri_ref((16, 32), upper, diagonal, dt)
        call = f"pl.{op}([16, 32], pl.{DT_NAME[dt]}, upper={upper}, diagonal={diagonal})"
        body = [f"pl.store({call}, [0, 0], out)"] if op.startswith("tile.") else [f"out[:] = {call}"]
        cases.append(_src({}, want, body, f"{op}[upper={upper}, diagonal={diagonal}]", tol=EXACT))
    return cases


both("tri", (FP32, FP16, INT32), _tri_cases,
     "value: 1 where j - i <= diagonal (lower) / >= diagonal (upper=True), else 0; diagonals 0, 3, -6, -20")

E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
DT_NAME[E8M0] = "FP8E8M0"


def _mx_cases(op: str, dt) -> list[Case]:
    """A [16, 64] x [64, 32] MX product: the sum of a[m, k] 2^(ea - 127) b[k, n] 2^(eb - 127) over k, one E8M0
    exponent per 32 elements of K, computed in Python floats (exact) and rounded to FP32."""
    rng = np.random.default_rng(50)
    a = rng.normal(0, 2, (16, 64)).astype(FP8E4M3)
    b = rng.normal(0, 2, (64, 32)).astype(FP8E4M3)
    ea, eb = rng.integers(118, 136, (16, 2)), rng.integers(118, 136, (2, 32))
    prod = np.zeros((16, 32))
    for m in range(16):
        for n in range(32):
            prod[m, n] = math.fsum(float(a[m, k]) * 2.0 ** (int(ea[m, k // 32]) - 127) * float(b[k, n])
                                   * 2.0 ** (int(eb[k // 32, n]) - 127) for k in range(64))
    ins = {"a0": a, "a1": ea.astype(np.uint8).view(E8M0), "a2": b, "a3": eb.astype(np.uint8).view(E8M0)}
    body = ["ta = pl.load(a0, [0, 0], [16, 64], target_memory=pl.Mem.Mat)",
            "tsa = pl.load(a1, [0, 0], [16, 2], target_memory=pl.Mem.Mat)",
            "tb = pl.load(a2, [0, 0], [64, 32], target_memory=pl.Mem.Mat)",
            "tsb = pl.load(a3, [0, 0], [2, 32], target_memory=pl.Mem.Mat)",
            "la = pl.move(ta, target_memory=pl.Mem.Left)", "lsa = pl.move(tsa, target_memory=pl.Mem.Left)",
            "rb = pl.move(tb, target_memory=pl.Mem.Right)", "rsb = pl.move(tsb, target_memory=pl.Mem.Right)"]
    tol = EXACT
    if op.endswith("_acc"):
        body += ["c1 = pl.tile.matmul_mx(la, lsa, rb, rsb)", "c = pl.tile.matmul_mx_acc(c1, la, lsa, rb, rsb)"]
        want = (2 * prod.astype(np.float32)).astype(np.float32)  # 2 * round(p) is exact
    elif op.endswith("_bias"):
        bias = rng.normal(0, 3, (1, 32)).astype(np.float32)
        ins["a4"] = bias
        body += ["tbias = pl.load(a4, [0, 0], [1, 32], target_memory=pl.Mem.Mat)",
                 "bb = pl.move(tbias, target_memory=pl.Mem.Bias)", "c = pl.tile.matmul_mx_bias(la, lsa, rb, rsb, bb)"]
        want = (prod + bias.astype(np.float64)).astype(np.float32)
        tol = Tol(ulps=1, atol=np.abs(prod) * 2.0 ** -24)  # the product is rounded to FP32 before the bias add
    else:
        body += ["c = pl.tile.matmul_mx(la, lsa, rb, rsb)"]
        want = prod.astype(np.float32)
    body.append("pl.store(c, [0, 0], out)")
    return [_src(ins, want, body, op, tol=tol, target="Ascend950")]


for _mx in ("matmul_mx", "matmul_mx_acc", "matmul_mx_bias"):
    TABLE[f"tile.{_mx}"] = Entry(f"tile.{_mx}", (FP8E4M3,), (lambda o: lambda dt: _mx_cases(o, dt))(f"tile.{_mx}"),
                                 "value: sum_k a 2^(ea - 127) b 2^(eb - 127), FP8E4M3FN data, E8M0 scales per 32 of K; "
                                 "_acc adds the accumulator, _bias a [1, N] row", targets=("Ascend950",))


# ------------------------------------------------------------------------------------------------
# cross-core transfers (docs/cross_core.md): a cube result handed to the two AIV lanes of a pl.split_aiv region and
# back; small integers, so every product is exact in FP32 and each lane's part is checked by position
# ------------------------------------------------------------------------------------------------

_XC_HEAD = ("import tilefold.language as pl\n\n\n@pl.jit\ndef k(a0: pl.Tensor[[32, 32], pl.FP16], "
            "a1: pl.Tensor[[32, 32], pl.FP16], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):\n"
            "    with pl.at(level=pl.Level.CORE_GROUP):\n")
_XC_MM = ("        a_t = pl.load(a0, [0, 0], [32, 32], target_memory=pl.Mem.Mat)\n"
          "        b_t = pl.load(a1, [0, 0], [32, 32], target_memory=pl.Mem.Mat)\n"
          "        acc = pl.tile.matmul(a_t, b_t)\n")
#: (mode, the lane's store offset) of a region writing its part of a [32, 32] result
_XC_MODES = {"NONE": None, "UP_DOWN": "[aiv_id * 16, 0]", "LEFT_RIGHT": "[0, aiv_id * 16]"}


def _xc_operands() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(19)
    a = rng.integers(-4, 5, size=(32, 32)).astype(np.float16)
    b = rng.integers(-4, 5, size=(32, 32)).astype(np.float16)
    return a, b, a.astype(np.float64) @ b.astype(np.float64)


def _xc_case(label: str, body: str, want: np.ndarray) -> Case:
    a, b, _ = _xc_operands()
    src = _XC_HEAD + body + "    return out\n"
    return Case(label, src, {"a0": a, "a1": b}, {"out": want.astype(np.float32)}, EXACT)


def _shard_cases(op: str):
    def build(dt):
        _, _, p = _xc_operands()
        shard = "pl.tile.aiv_shard(acc)" if op.startswith("tile.") else "pl.tensor.aiv_shard(mm)"
        mm = _XC_MM if op.startswith("tile.") else "        mm = pl.matmul(a0, a1, out_dtype=pl.FP32)\n"
        cases = []
        for mode, offset in _XC_MODES.items():
            lines = [f"        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.{mode}):",
                     f"            h = {shard}",
                     "            e = pl.mul(h, 3.0)"]
            if offset is None:  # both lanes hold the whole tile: each stores the rows it owns
                lines.append("            e = pl.tile.slice(e, [16, 32], [aiv_id * 16, 0])" if op.startswith("tile.")
                             else "            e = pl.slice(e, [16, 32], [aiv_id * 16, 0])")
                offset = "[aiv_id * 16, 0]"
            store = (f"            out = pl.store(e, {offset}, out)" if op.startswith("tile.")
                     else f"            out = pl.assemble(out, e, {offset})")
            cases.append(_xc_case(f"{op} {mode}", mm + "\n".join([*lines, store]) + "\n", 3.0 * p))
        return cases
    return build


def _gather_cases(op: str):
    def build(dt):
        _, _, p = _xc_operands()
        cases = []
        for mode in _XC_MODES:
            if op.startswith("tile."):
                body = (_XC_MM + f"        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.{mode}):\n"
                        "            h = pl.tile.aiv_shard(acc)\n            v = pl.adds(h, 1.0)\n"
                        "            g = pl.tile.aic_gather(v)\n        r = pl.tile.matmul(g, g)\n"
                        "        out = pl.store(r, [0, 0], out)\n")
            else:
                body = ("        mm = pl.matmul(a0, a1, out_dtype=pl.FP32)\n"
                        f"        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.{mode}):\n"
                        "            v = pl.adds(pl.tensor.aiv_shard(mm), 1.0)\n"
                        "            g = pl.tensor.aic_gather(v)\n        out[:] = pl.matmul(g, g, out_dtype=pl.FP32)\n")
            q = p + 1.0
            cases.append(_xc_case(f"{op} {mode}", body, q @ q))
        return cases
    return build


def _pipe_cases(op: str):
    def build(dt):
        _, _, p = _xc_operands()
        cases = []
        for mode, split in (("NONE", 0), ("UP_DOWN", 1), ("LEFT_RIGHT", 2)):
            body = (_XC_MM + f"        pl.tpush_to_aiv(acc, split={split}, id=0)\n"
                    f"        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.{mode}):\n"
                    f"            h = pl.tpop_from_aic(split={split}, id=0)\n"
                    "            e = pl.adds(h, 2.0)\n            pl.tfree_to_aic(h, id=0)\n"
                    f"            pl.tpush_to_aic(e, split={split}, id=1)\n"
                    f"        g = pl.tpop_from_aiv(split={split}, id=1)\n        r = pl.tile.matmul(g, g)\n"
                    "        pl.tfree_to_aiv(g, id=1)\n        out = pl.store(r, [0, 0], out)\n")
            q = p + 2.0
            cases.append(_xc_case(f"{op} {mode}", body, q @ q))
        return cases
    return build


def _ring_cases(op: str):
    """The round trip of ``_pipe_cases`` with both pipes set up (docs/cross_core.md "Ring set-up"), rings of 1 and 2
    slots: the values are the same."""
    def build(dt):
        _, _, p = _xc_operands()
        head = _XC_HEAD.replace("pl.at(level=pl.Level.CORE_GROUP)", 'pl.at(level=pl.Level.CORE_GROUP, name_hint="ring")')
        cases = []
        for depth in (1, 2):
            setup = "".join(  # a lane pops a [16, 32] half (2 KiB); the cube pops the joined [32, 32] (4 KiB)
                f'        {b} = pl.reserve_buffer(name="{b}", size={depth * slot}, base=pl.AUTO)\n'
                f'        {b}_peer = pl.import_peer_buffer(name="{b}", peer_func="ring")\n'
                f"        pl.{prod}_initialize_pipe(pl.const(0, pl.INT32), {b}_peer, dir_mask={mask}, "
                f"slot_size={slot}, slot_num={depth}, id={pid})\n"
                f"        pl.{cons}_initialize_pipe(pl.const(0, pl.INT32), {b}, dir_mask={mask}, slot_size={slot}, "
                f"slot_num={depth}, id={pid})\n"
                for b, mask, pid, prod, cons, slot in (("fwd", 1, 0, "aic", "aiv", 2048),
                                                       ("back", 2, 1, "aiv", "aic", 4096)))
            body = (setup + _XC_MM + "        pl.tpush_to_aiv(acc, split=1, id=0)\n"
                    "        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
                    "            h = pl.tpop_from_aic(split=1, id=0)\n"
                    "            e = pl.adds(h, 2.0)\n            pl.tfree_to_aic(h, id=0)\n"
                    "            pl.tpush_to_aic(e, split=1, id=1)\n"
                    "        g = pl.tpop_from_aiv(split=1, id=1)\n        r = pl.tile.matmul(g, g)\n"
                    "        pl.tfree_to_aiv(g, id=1)\n        out = pl.store(r, [0, 0], out)\n")
            a, b, _ = _xc_operands()
            q = p + 2.0
            cases.append(Case(f"{op} depth {depth}", head + body + "    return out\n", {"a0": a, "a1": b},
                              {"out": (q @ q).astype(np.float32)}, EXACT))
        return cases
    return build


for _op in ("tile.aiv_shard", "tensor.aiv_shard"):
    entry(_op, (FP32,), _shard_cases(_op), "value: lane k of an UP_DOWN / LEFT_RIGHT region receives rows / columns "
          "[16 k, 16 k + 16) of a [32, 32] cube result, of a NONE region all of it", "lane-dependent: no golden formula")
for _op in ("tile.aic_gather", "tensor.aic_gather"):
    entry(_op, (FP32,), _gather_cases(_op), "value: the lanes' halves (UP_DOWN / LEFT_RIGHT) or their agreed whole "
          "(NONE) joined on the cube and multiplied by itself", "lane-dependent: no golden formula")
for _op in ("tile.tpush_to_aiv", "tile.tpop_from_aic", "tile.tfree_to_aic", "tile.tpush_to_aic",
            "tile.tpop_from_aiv", "tile.tfree_to_aiv"):
    entry(_op, (FP32,), _pipe_cases(_op), "value: a cube result pushed to the lanes (split 0 / 1 / 2), +2 on each "
          "lane, pushed back, joined and squared on the cube; every pop freed", "a FIFO of slots: no golden formula")
for _op in ("tile.reserve_buffer", "tile.import_peer_buffer", "tile.aic_initialize_pipe", "tile.aiv_initialize_pipe"):
    entry(_op, (FP32,), _ring_cases(_op), "value: the set-up round trip (c2v and v2c rings of 1 and 2 slots) gives "
          "the values of the pipes without set-up", "a set-up instruction: no value")


# ------------------------------------------------------------------------------------------------
# scans and the full sort along an axis (HIVM's vcumsum / vcumprod / vsort; tilefold.ops.scan_ops)
# ------------------------------------------------------------------------------------------------


def _scan_ref(x: np.ndarray, axis: int, reverse: bool, product: bool) -> np.ndarray:
    """Element by element along ``axis``: floats keep an FP32 running value (each step rounded to FP32) and round
    each prefix once to the dtype; integers wrap in the dtype."""
    lines = np.moveaxis(x, axis, -1)
    out = np.empty(lines.shape, dtype=object)
    order = list(range(lines.shape[-1]))[::-1] if reverse else list(range(lines.shape[-1]))
    for idx in np.ndindex(lines.shape[:-1]):
        acc = 1 if product else 0
        for k in order:
            v = lines[idx + (k,)]
            if is_float(x.dtype):
                with np.errstate(all="ignore"):
                    acc = float(f32r(f64(acc) * f64(v) if product else f64(acc) + f64(v)))
            else:
                acc = int(wrap(acc * int(v) if product else acc + int(v), x.dtype))
            out[idx + (k,)] = acc
    res = np.moveaxis(out, -1, axis)
    return to_float(res.astype(np.float64), x.dtype) if is_float(x.dtype) else wrap(res, x.dtype)


def _scan_cases(product: bool):
    def build(dt):
        rng = np.random.default_rng(41 + product)
        if is_float(dt):
            x = rng.uniform(0.5, 1.5, (16, 32)) if product else rng.uniform(-8, 8, (16, 32))
            x[0, 3], x[1, 5], x[2, 0], x[3, 7] = math.nan, math.inf, -math.inf, -0.0  # propagate along their line
            x = to_float(x, dt)
        else:
            x = rng.integers(-3, 4, (16, 32)) if product else rng.integers(-100, 100, (16, 32))
            x[4, :] = int_min_max(dt)[1]  # the line's sum (product) wraps
            x = x.astype(dt)
        name = "cumprod" if product else "cumsum"
        cases = []
        for axis, reverse in ((1, False), (1, True), (0, False)):
            want = _scan_ref(x, axis, reverse, product)
            cases.append(_src({"a0": x}, want, ["x = pl.load(a0, [0, 0], [16, 32])",
                                                f"pl.store(pl.tile.{name}(x, axis={axis}, reverse={reverse}), "
                                                "[0, 0], out)"],
                              f"tile.{name}[axis={axis}, reverse={reverse}]", tol=EXACT))
        return cases
    return build


def _sort_cases(dt):
    x = pattern(dt, (4, 32), 43)
    if is_float(dt):  # NaN last in either order; the sign of an equal zero's place is not checked
        x[0, :4] = to_float(np.array([math.nan, 1.0, 1.0, -math.inf]), dt)
    cases = []
    for descending in (False, True):
        rows = []
        for row in x:
            vals = [v for v in row.tolist() if not (isinstance(v, float) and math.isnan(v))]
            nans = len(row) - len(vals)
            rows.append(sorted(vals, reverse=descending) + [math.nan] * nans)
        want = np.array(rows, dtype=np.float64 if is_float(dt) else np.int64).astype(dt)
        cases.append(_src({"a0": x}, want, ["x = pl.load(a0, [0, 0], [4, 32])",
                                            f"pl.store(pl.tile.sort(x, axis=1, descending={descending}), [0, 0], out)"],
                          f"tile.sort[descending={descending}]", tol=EXACT_ZERO_SIGN_FREE))
    return cases


entry("tile.cumsum", (FP32, FP16, INT32, INT16), _scan_cases(False),
      "value: inclusive prefix sums along each axis, forward and reverse; NaN / inf propagate along their line; "
      "integers wrap")
entry("tile.cumprod", (FP32, FP16, INT32), _scan_cases(True),
      "value: inclusive prefix products along each axis, forward and reverse; integers wrap")
entry("tile.sort", (FP32, FP16, INT32, INT8), _sort_cases,
      "value: each row's values ascending / descending, NaN last, zero signs free")
