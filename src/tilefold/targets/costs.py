"""Instruction prices from measured tables: what one PTO instruction costs on a target.

Each target family has one data module (``costs_a2a3.py`` for Ascend910B / 910C, ``costs_a5.py`` for Ascend950)
holding PTO-ISA's measured formula table unchanged plus the stated rules for what the table does not cover.
This module turns them into prices:

- ``A2A3Table.vector``: every shape of a measured (op, dtype) is priced by one structural formula derived
  from all its measured columns (``cost_fit.fit_family``: ``startup + c * repeats_per_row + rows * (per_row +
  per_repeat * repeats_per_row)`` plus the once-per-instruction cost of a masked pass (narrow rows, split tails)
  and, for chained instructions, of a split tail per row; ``repeats_per_row = max(1, blocks / 8)`` counting the
  row's 32-byte blocks in 256-byte repeats, at least one per row: the vector unit works row by row and a narrow
  row wastes most of its repeat). The exact-column lines are not looked up: at their own columns the formula
  reproduces them (the figures are in ``benchmarks/cost_fidelity.py``), and between and beyond them it follows
  the repeat structure. Measured inside the measured column range, extrapolated beyond it. An op the table lacks is
  priced like its nearest measured families (``EXTRAPOLATED_OPS``), a dtype it lacks like the measured dtype
  of its element size (the repeat count keeps the real size) -- both extrapolated.
- ``A5Table.vector``: the VF formula of the (op, src dtype, dst dtype, path); a contiguous valid region (valid
  cols == cols, or one valid row) takes the 1-D path over all its repeats, a row-padded one the 2-D path
  (repeats per row x rows). The table's tail / full and post-update variants carry the same parameters, so only
  the path and the ``op_params`` variant change a price. Ops without an A5 entry: ``EXTRAPOLATED_OPS`` (A5
  families, or A2/A3 families with A5's start-up, A5's per-row VF loop cost and A2/A3's work scaled by the
  two targets' add per repeat, ``A5Table.a2a3_scale``).
- ``cube``: ``startup + ceil(m/16) * ceil(k / (32 / elem_bytes)) * ceil(n/16) * f`` (f = 2 for FP32).
- ``path``: (bytes per cycle, latency per contiguous block) of a data path.

``price_instruction(table, op, dtypes, shape, valid_shape)`` prices one instruction;
``tilefold.targets.instruction_cycles(op, dtypes, shape, valid_shape, target)`` is the same on a target. It is
what the simulator charges (``sim/machine.py``), so a one-op kernel's instruction record shows exactly this
price.
"""

from __future__ import annotations

import csv
import io
import math
import numbers
from dataclasses import dataclass, replace
from functools import cached_property

from tilefold.errors import NotSupportedError
from tilefold.targets.cost_fit import FamilyFit, fit_family, repeats_per_row

#: the origins a price can have (the trace records one per instruction)
ORIGINS = ("measured", "extrapolated", "declared", "assumed")

_DTYPE_ALIASES = {
    "fp32": "fp32", "float32": "fp32", "f32": "fp32", "float": "fp32",
    "fp16": "fp16", "float16": "fp16", "f16": "fp16", "half": "fp16",
    "bf16": "bf16", "bfloat16": "bf16",
    "int8": "int8", "i8": "int8", "uint8": "uint8", "u8": "uint8", "bool": "uint8",
    "int16": "int16", "i16": "int16", "uint16": "uint16", "int32": "int32", "i32": "int32", "uint32": "uint32",
    "int64": "int64", "uint64": "uint64", "fp64": "fp64", "float64": "fp64",
    "fp8e4m3": "fp8_e4m3", "fp8_e4m3": "fp8_e4m3", "float8_e4m3fn": "fp8_e4m3",
    "fp8e5m2": "fp8_e5m2", "fp8_e5m2": "fp8_e5m2", "float8_e5m2": "fp8_e5m2",
    "hif8": "hif8", "fp4_e1m2": "fp4_e1m2", "fp4_e2m1": "fp4_e2m1", "int4": "int8", "uint4": "uint8",
    "fp4": "fp4_e2m1", "float4_e2m1fn": "fp4_e2m1", "fp8e8m0": "fp8_e8m0", "float8_e8m0fnu": "fp8_e8m0",
}
_ITEMSIZE = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4,
             "uint32": 4, "int64": 8, "uint64": 8, "fp64": 8, "fp8_e4m3": 1, "fp8_e5m2": 1, "hif8": 1,
             "fp4_e1m2": 1, "fp4_e2m1": 1, "fp8_e8m0": 1}


def dtype_key(dtype) -> str:
    """The table's spelling of a dtype (``"FP32"``, ``DataType.FP32``, ``"float32"`` -> ``"fp32"``)."""
    name = getattr(dtype, "name", dtype)
    key = _DTYPE_ALIASES.get(str(name).lower())
    if key is None:
        raise NotSupportedError(f"no instruction cost for dtype {dtype!r}",
                                hint=f"known dtypes: {', '.join(sorted(set(_DTYPE_ALIASES.values())))}")
    return key


def itemsize(dtype: str) -> int:
    return _ITEMSIZE[dtype_key(dtype)]


@dataclass(frozen=True)
class Price:
    """The price of one instruction: its cycles, the pipe it runs on, where the figure comes from."""

    cycles: int
    pipe: str
    origin: str  # one of ORIGINS
    rule: str  # which entry / rule gave it (human-readable)

    def __add__(self, other: Price) -> Price:
        origin = self.origin if self.origin == other.origin else "extrapolated"
        return Price(self.cycles + other.cycles, self.pipe, origin, f"{self.rule} + {other.rule}")


class _Table:
    module = None  # the data module
    name = ""

    @cached_property
    def paths(self) -> dict[tuple[str, str], tuple[float, float, str, str]]:
        return self.module.PATHS

    def cube(self, m: int, k: int, n: int, dtype) -> Price:
        c = self.module.CUBE
        key = dtype_key(dtype)
        eb = _ITEMSIZE[key]
        k0 = max(1, c["k_row_bytes"] // eb)
        f = c["fp32_factor"] if key == "fp32" else 1
        fractals = math.ceil(m / c["fractal_m"]) * math.ceil(k / k0) * math.ceil(n / c["fractal_n"])
        return Price(c["startup"] + fractals * f, "CUBE", c["origin"],
                     f"cube {c['startup']} + ceil(m/16)*ceil(k/{k0})*ceil(n/16)*{f}")

    def scalar_instruction(self, name: str) -> Price:
        """The price of the scalar-pipe instruction ``name`` (``SCALAR_INSTRUCTIONS`` of the table)."""
        cycles, origin, source = self.module.SCALAR_INSTRUCTIONS[name]
        return Price(cycles, "S", origin, f"{name}: {source}")

    def path(self, src: str, dst: str) -> tuple[float, float, str, str]:
        """(bytes per cycle, latency per contiguous block, origin, source) of the ``src -> dst`` data path."""
        try:
            return self.paths[(src, dst)]
        except KeyError:
            raise NotSupportedError(f"no cost for the {src} -> {dst} data path on {self.name}") from None

    def transfer(self, src: str, dst: str, nbytes: int, blocks: int = 1) -> Price:
        bpc, lat, origin, _ = self.path(src, dst)
        pipe = "VECTOR" if (src, dst) == ("Vec", "Vec") else _PATH_PIPE.get((src, dst), "MTE2")
        return Price(round(lat * max(1, blocks) + nbytes / bpc), pipe, origin,
                     f"{src} -> {dst}: {lat:g} x {max(1, blocks)} block(s) + bytes / {bpc:g}")


_PATH_PIPE = {("DDR", "Vec"): "MTE2", ("DDR", "Mat"): "MTE2", ("Vec", "DDR"): "MTE3", ("Acc", "DDR"): "FIXPIPE",
              ("Acc", "Vec"): "FIXPIPE", ("Mat", "Left"): "MTE1", ("Mat", "Right"): "MTE1", ("Mat", "Bias"): "MTE1",
              ("Mat", "Mat"): "MTE1"}


class A2A3Table(_Table):
    """Ascend910B / 910C: PTO-ISA's A2/A3 table (``costs_a2a3.py``)."""

    name = "A2/A3"

    def __init__(self) -> None:
        import tilefold.targets.costs_a2a3 as data

        self.module = data
        self.exact: dict[tuple[str, str, int], tuple[float, float]] = {}
        self.any: dict[str, tuple[float, float]] = {}  # op -> (slope, bias) for every dtype / cols
        for row in csv.DictReader(io.StringIO(data.MEASURED_CSV)):
            slope, bias = float(row["slope"]), float(row["bias"])
            if row["cols"] == "*":
                self.any[row["op"]] = (slope, bias)
            else:
                self.exact[(row["op"], row["dtype"], int(row["cols"]))] = (slope, bias)

    @cached_property
    def families(self) -> dict[tuple[str, str], FamilyFit]:
        """Every measured (op, dtype) as one structural formula over all its measured columns
        (``cost_fit.fit_family``); the ``*`` rows (any dtype / cols) are per element, i.e. a per-repeat cost of
        ``slope * elements per repeat``, with the bias as start-up (``any_family``)."""
        rows: dict[tuple[str, str], list[tuple[int, float, float]]] = {}
        for (op, dt, cols), (slope, bias) in self.exact.items():
            rows.setdefault((op, dt), []).append((cols, slope, bias))
        return {key: fit_family(sorted(entries), _ITEMSIZE[key[1]]) for key, entries in rows.items()}

    def any_family(self, op: str, dtype: str) -> FamilyFit:
        slope, bias = self.any[op]
        return FamilyFit(bias, slope * 256 / _ITEMSIZE[dtype], 0.0)

    def measured_ops(self) -> set[str]:
        return {op for op, _, _ in self.exact} | set(self.any)

    def family(self, op: str, dtype: str, rows: int, cols: int, startup: float | None = None,
               masks_free: bool = False) -> Price:
        """One measured family's structural price; ``startup`` replaces its start-up and ``masks_free`` drops the
        cost of masked passes (split tails, narrow rows) -- A5's use of A2/A3 families. Measured when the (op,
        dtype) is in the table and ``cols`` lies within its measured columns; extrapolated otherwise (another
        dtype of the same element size, or columns beyond the measured range)."""
        eb = _ITEMSIZE[dtype]
        if op in self.any:
            fit, origin, what = self.any_family(op, dtype), "measured", f"{op} any dtype"
        else:
            dt = dtype if (op, dtype) in self.families else self.module.DTYPE_BY_ITEMSIZE.get(eb, "fp32")
            fit = self.families.get((op, dt))
            if fit is None:
                raise NotSupportedError(f"A2/A3 cost table: no family {op} {dt}")
            span = fit.columns + fit.excluded
            inside = dt == dtype and min(span) <= cols <= max(span)
            origin, what = ("measured" if inside else "extrapolated"), f"{op} {dt}"
        if startup is not None:
            fit = replace(fit, startup=startup)
            origin = "extrapolated"
        if masks_free:
            fit = replace(fit, startup_tail=0.0, startup_narrow=0.0, tail_per_row=0.0)
        return Price(max(1, round(fit.cycles(rows, cols, eb))), "VECTOR", origin, f"{what}: {fit.describe()}")

    def vector(self, op: str, src: str, dst: str, rows: int, cols: int, valid_rows: int, valid_cols: int,
               variant: str | None = None) -> Price:
        dtype = src if _ITEMSIZE[src] >= _ITEMSIZE[dst] else dst  # repeats of the wider side
        if variant is not None:
            return self._variant_price(op, variant, src, dst, rows, cols, valid_rows, valid_cols)
        if op in self.measured_ops():
            return self.family(op, dtype, valid_rows, valid_cols)
        scaled = self._a5_ratio_price(op, src, dst, valid_rows, valid_cols)
        if scaled is not None:
            return scaled
        rule = self.module.EXTRAPOLATED_OPS.get(op)
        if rule is None:
            raise NotSupportedError(f"{op} has no A2/A3 cost entry or extrapolation rule",
                                    hint="add it to EXTRAPOLATED_OPS in tilefold/targets/costs_a2a3.py")
        fams, why = rule
        parts = [self._part(f, dtype, valid_rows, valid_cols) for f in fams]
        price = sum(parts[1:], parts[0])
        return Price(price.cycles, "VECTOR", "extrapolated", f"{op}: {why} ({price.rule})")

    def _part(self, fam: str, dtype: str, rows: int, cols: int) -> Price:
        """One family of an ``EXTRAPOLATED_OPS`` rule: a measured family, or an op priced by ``A5_RATIO_RULES``
        (TSEL in the sort rules)."""
        if fam in self.measured_ops():
            return self.family(fam, dtype, rows, cols)
        scaled = self._a5_ratio_price(fam, dtype, dtype, rows, cols)
        if scaled is None:
            raise NotSupportedError(f"A2/A3 cost table: rule family {fam} is neither measured nor priced by A5's ratio")
        return scaled

    def _a5_ratio_price(self, op: str, src: str, dst: str, rows: int, cols: int) -> Price | None:
        """An op A2/A3 lacks and A5 measures (``A5_RATIO_RULES``): its A2/A3 family's start-up plus the family's work
        above it times A5's per-repeat ratio of the op to the family; None when the rule does not cover the dtypes
        (the op then takes its ``EXTRAPOLATED_OPS`` rule)."""
        rule = getattr(self.module, "A5_RATIO_RULES", {}).get(op)
        if rule is None:
            return None
        fam, dtypes, why = rule
        if dtypes is not None and (src not in dtypes or dst not in dtypes):
            return None
        dtype = src if _ITEMSIZE[src] >= _ITEMSIZE[dst] else dst
        a5 = table("a5")
        mine, theirs = a5.per_repeat(op, src, dst), a5.per_repeat(fam, dtype, dtype)
        if mine is None or theirs is None:
            return None
        base = self.family(fam, dtype, rows, cols)
        dt = dtype if (fam, dtype) in self.families or fam in self.any else \
            self.module.DTYPE_BY_ITEMSIZE.get(_ITEMSIZE[dtype], "fp32")
        startup = self.any_family(fam, dt).startup if fam in self.any else self.families[(fam, dt)].startup
        ratio = mine / theirs
        cycles = max(1, round(startup + ratio * (base.cycles - startup)))
        return Price(cycles, "VECTOR", "extrapolated",
                     f"{op}: {why}: {startup:.1f} + {ratio:.3f} x ({base.rule} - {startup:.1f})")

    def _variant_price(self, op: str, variant: str, src: str, dst: str, rows: int, cols: int, valid_rows: int,
                       valid_cols: int) -> Price:
        """An implementation variant the A2/A3 table does not measure (``VARIANT_RULES``): the default price's work
        above its start-up scaled by the stated per-dtype ratio; the start-up stays."""
        rule = self.module.VARIANT_RULES.get((op, variant))
        if rule is None:
            raise NotSupportedError(f"{op} has no A2/A3 cost rule for its {variant} variant",
                                    hint="add it to VARIANT_RULES in tilefold/targets/costs_a2a3.py")
        base_family, ratios, why = rule
        dtype = src if _ITEMSIZE[src] >= _ITEMSIZE[dst] else dst
        base = self.vector(op, src, dst, rows, cols, valid_rows, valid_cols)
        dt = dtype if (base_family, dtype) in self.families else self.module.DTYPE_BY_ITEMSIZE.get(_ITEMSIZE[dtype],
                                                                                                  "fp32")
        startup = self.families[(base_family, dt)].startup
        ratio = ratios.get(dt, ratios["fp32"])
        cycles = max(1, round(startup + ratio * (base.cycles - startup)))
        return Price(cycles, "VECTOR", "extrapolated",
                     f"{op} {variant}: {why}: {startup:.1f} + {ratio:.2f} x ({base.rule} - {startup:.1f})")


_A5_VARIANT_ORDER = ("NO_POST_UPDATE", "DEFAULT", "POST_UPDATE")


class A5Table(_Table):
    """Ascend950: PTO-ISA's A5 VF-formula table (``costs_a5.py``)."""

    name = "A5"

    def __init__(self, a2a3: A2A3Table) -> None:
        import tilefold.targets.costs_a5 as data

        self.module = data
        self.a2a3 = a2a3
        # (op, src, dst, path, tail) -> [(vf_impl, op_params, kind, params)]
        self.entries: dict[tuple[str, str, str, str, str], list[tuple[str, str, str, tuple[float, ...]]]] = {}
        for row in csv.DictReader(io.StringIO(data.MEASURED_CSV)):
            key = (row["op"], row["src_dtype"], row["dst_dtype"], row["shape_path"], row["tail_kind"])
            params = tuple(float(row[f"param{i}"]) for i in range(4))
            self.entries.setdefault(key, []).append((row["vf_impl_kind"], row["op_params"], row["formula_kind"],
                                                     params))

    def measured_ops(self) -> set[str]:
        return {k[0] for k in self.entries}

    def _variant(self, key, loops: int, prefer: str | None = None):
        """The implementation variant tilefold's instruction is: no post-update first; TRECIP's default (not
        high precision) unless ``prefer`` names the ``op_params`` of another; TSEL b32 by the parity of the repeat
        count."""
        cands = self.entries.get(key)
        if not cands:
            return None
        if prefer is not None:
            cands = [c for c in cands if c[1] == prefer]
            if not cands:
                raise NotSupportedError(f"A5 cost table: no {prefer} variant of {key[0]}")
        def rank(c):
            vf, params, _, _ = c
            pref = 0 if params in ("", "default", "CAST_RINT_SAT_ON_normal", "TSel_b16_8", "TSel_b32", prefer) else 1
            if params in ("TSel_b32_even", "TSel_b32_odd"):
                pref = 0 if params.endswith("even" if loops % 2 == 0 else "odd") else 1
            return (pref, _A5_VARIANT_ORDER.index(vf) if vf in _A5_VARIANT_ORDER else 9)
        return min(cands, key=rank)

    def _dtypes_for(self, op: str, src: str, dst: str) -> tuple[str, str, bool]:
        """(src, dst) of a measured entry of ``op`` for these dtypes; False when mapped by element size."""
        dst_key = dst if op == "TCVT" else "none"
        if any(k[0] == op and k[1] == src and k[2] == dst_key for k in self.entries):
            return src, dst_key, True
        by = self.module.DTYPE_BY_ITEMSIZE
        s2 = by.get(_ITEMSIZE[src], "fp32")
        d2 = by.get(_ITEMSIZE[dst], "fp32") if op == "TCVT" else "none"
        for s, d in ((s2, d2), (s2, "fp16"), ("fp32", d2), ("fp32", "fp16"), ("fp32", "none"), ("fp16", "none")):
            if any(k[0] == op and k[1] == s and k[2] == d for k in self.entries):
                return s, d, False
        raise NotSupportedError(f"A5 cost table: no {op} entry near {src} -> {dst}")

    def family(self, op: str, src: str, dst: str, rows: int, cols: int, valid_rows: int,
               valid_cols: int, variant: str | None = None) -> Price:
        if op.startswith("a2a3:"):
            return self._from_a2a3(op[5:], src if _ITEMSIZE[src] >= _ITEMSIZE[dst] else dst, valid_rows, valid_cols)
        s, d, exact_dtypes = self._dtypes_for(op, src, dst)
        eb = max(_ITEMSIZE[src], _ITEMSIZE[dst]) if op == "TCVT" else _ITEMSIZE[src]
        # the 1-D path runs over one contiguous run of elements: a tile whose valid columns are its columns, or
        # a single valid row; a row-padded tile of several rows takes the 2-D path (repeats per row x rows)
        contiguous = valid_cols == cols or valid_rows == 1
        loops = math.ceil(valid_rows * valid_cols * eb / 256)
        inner = math.ceil(valid_cols * eb / 256)
        if contiguous:
            tail = "full" if (valid_rows * valid_cols * eb) % 256 == 0 else "tail"
            ent = self._variant((op, s, d, "1D", tail), loops, variant)
            if ent is not None:
                p0, p1 = ent[3][0], ent[3][1]
                cyc = p0 * loops + p1
                rule = f"{op} {s}->{d} 1D {ent[0]}: {p0:g}*{loops}+{p1:g}"
                origin = "measured" if exact_dtypes else "extrapolated"
                if p0 < 0:  # fitted over small sizes only: never below the same work as one 2-D row
                    two = self._variant((op, s, d, "2D", tail), loops, variant)
                    if two is not None:
                        alt = (two[3][0] * loops + two[3][1]) + two[3][2]
                        if alt > cyc:
                            cyc, origin = alt, "extrapolated"
                            rule += f"; negative slope: 2-D over one row {alt:.0f}"
                return Price(max(1, round(cyc)), "VECTOR", origin, rule)
        tail = "full" if (valid_cols * eb) % 256 == 0 else "tail"
        ent = self._variant((op, s, d, "2D", tail), inner, variant)
        if ent is None:
            raise NotSupportedError(f"A5 cost table: no 2-D entry for {op} {s}->{d}")
        p0, p1, p2 = ent[3][:3]
        cyc = (p0 * inner + p1) * valid_rows + p2
        return Price(max(1, round(cyc)), "VECTOR", "measured" if exact_dtypes else "extrapolated",
                     f"{op} {s}->{d} 2D {ent[0]}: ({p0:g}*{inner}+{p1:g})*{valid_rows}+{p2:g}")

    def per_repeat(self, op: str, src: str, dst: str) -> float | None:
        """A5's measured cost of one more repeat of ``op`` per row (the 2-D ``param0`` of the variant tilefold
        runs) for these dtypes, or for the measured ones A5's own rule maps them to (same element size); None
        when A5 does not measure ``op``."""
        if op not in self.measured_ops():
            return None
        try:
            s, d, _ = self._dtypes_for(op, src, dst)
        except NotSupportedError:
            return None
        ent = self._variant((op, s, d, "2D", "full"), 2)
        return None if ent is None else ent[3][0]

    def a2a3_scale(self, dtype: str) -> float:
        """A5's per-repeat cost of an add over A2/A3's, for ``dtype``'s element size: A5's measured 2-D TADD
        ``param0`` over A2/A3's fitted TSUB per-repeat term (both targets' binary add-class op; A2/A3 has no
        TADD line)."""
        a5_op, a2_op = self.module.A2A3_FAMILY_SCALE_OPS
        dt = self.module.DTYPE_BY_ITEMSIZE.get(_ITEMSIZE[dtype], "fp32")
        dt = dt if any(k[:4] == (a5_op, dt, "none", "2D") for k in self.entries) else "fp32"
        a5_per_repeat = self._variant((a5_op, dt, "none", "2D", "full"), 1)[3][0]
        a2_dt = dt if (a2_op, dt) in self.a2a3.families else "fp32"
        return a5_per_repeat / self.a2a3.families[(a2_op, a2_dt)].per_repeat

    def _from_a2a3(self, op: str, dtype: str, rows: int, cols: int) -> Price:
        """An op A5's table lacks, from A2/A3's family of it (``costs_a5.EXTRAPOLATED_OPS``, "a2a3:" families):
        A5's start-up and per-row VF loop cost, plus A2/A3's work beyond its start-up scaled by ``a2a3_scale``.
        A2/A3's masked passes (a tail or narrow-row instruction) are left out: A5's table prices a partial repeat
        like a full one (its tail and full lines share their parameters)."""
        work = self.a2a3.family(op, dtype, rows, cols, startup=0.0, masks_free=True)
        scale = self.a2a3_scale(dtype)
        start, per_row = self.module.A2A3_FAMILY_STARTUP, self.module.A2A3_FAMILY_PER_ROW
        cycles = start + per_row * rows + scale * work.cycles
        return Price(max(1, round(cycles)), "VECTOR", "extrapolated",
                     f"A5 start-up {start:.1f} + {per_row:.2f} per row (A5's VF loop) + {scale:.3f} x A2/A3 work "
                     f"({work.rule}, start-up 0)")

    def vector(self, op: str, src: str, dst: str, rows: int, cols: int, valid_rows: int, valid_cols: int,
               variant: str | None = None) -> Price:
        if op in self.measured_ops():
            return self.family(op, src, dst, rows, cols, valid_rows, valid_cols, variant)
        if variant is not None:
            raise NotSupportedError(f"{op} has no measured {variant} variant on A5")
        rule = self.module.EXTRAPOLATED_OPS.get(op)
        if rule is None:
            raise NotSupportedError(f"{op} has no A5 cost entry or extrapolation rule",
                                    hint="add it to EXTRAPOLATED_OPS in tilefold/targets/costs_a5.py")
        fams, why = rule
        parts = [self.family(f, src, dst, rows, cols, valid_rows, valid_cols) for f in fams]
        price = sum(parts[1:], parts[0])
        return Price(price.cycles, "VECTOR", "extrapolated", f"{op}: {why} ({price.rule})")


_TABLES: dict[str, _Table] = {}


def table(name: str) -> _Table:
    """The cost table called ``name`` ("a2a3" or "a5"), built once."""
    t = _TABLES.get(name)
    if t is None:
        if name == "a2a3":
            t = A2A3Table()
        elif name == "a5":
            t = A5Table(table("a2a3"))  # type: ignore[arg-type]
        else:
            raise NotSupportedError(f"unknown cost table {name!r}", hint="a2a3 or a5")
        _TABLES[name] = t
    return t


def pto_mnemonic(op: str) -> str:
    """``"tadds"`` / ``"TADDS"`` -> ``"TADDS"``. tilefold op names (``"tile.adds"``) are resolved through the op
    registry by ``tilefold.sim.instruction_cycles`` (this package sits below the registry)."""
    if "." in op:
        raise NotSupportedError(f"{op!r} is a tilefold op name, not a PTO mnemonic",
                                hint="use tilefold.sim.instruction_cycles (resolves the registry's PTO name) or pass "
                                     "the mnemonic, e.g. 'TADDS'")
    return op.upper()


def _extents(name: str, shape, what: str, ranks: tuple[int, ...], least: int) -> tuple[int, ...]:
    """``shape`` as a tuple of integers of one of ``ranks`` entries, each at least ``least``; else a user error."""
    if not isinstance(shape, (tuple, list)) or len(shape) not in ranks \
            or any(isinstance(e, bool) or not isinstance(e, numbers.Integral) or e < least for e in shape):
        raise NotSupportedError(f"{name}: {what} {shape!r} is not {' or '.join(map(str, ranks))} integer extents "
                                f">= {least}", hint="e.g. (16, 64) for a vector tile, (m, k, n) for a matmul")
    return tuple(int(e) for e in shape)


def price_instruction(tab: _Table, op: str, dtypes, shape, valid_shape=None, *, blocks: int = 1,
                      variant: str | None = None) -> Price:
    """The price of one PTO instruction from cost table ``tab`` (``tilefold.targets.instruction_cycles`` documents
    the arguments)."""
    if not isinstance(op, str) or not op:
        raise NotSupportedError(f"instruction {op!r} is not a PTO mnemonic", hint="e.g. 'TADDS' or 'TMATMUL'")
    if isinstance(dtypes, (tuple, list)) and len(dtypes) != 2:
        raise NotSupportedError(f"dtypes {dtypes!r}: give one dtype or a (source, destination) pair",
                                hint="e.g. 'fp32' or ('fp16', 'fp32')")
    src, dst = (dtypes, dtypes) if not isinstance(dtypes, (tuple, list)) else dtypes
    src, dst = dtype_key(src), dtype_key(dst)
    name = pto_mnemonic(op)
    if name in ("TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC"):
        m, k, n = _extents(name, shape, "shape (m, k, n)", (3,), 1)
        return tab.cube(m, k, n, src)
    dims = _extents(name, shape, "shape (rows, cols)", (1, 2), 1)
    rows, cols = (1, *dims) if len(dims) == 1 else dims
    if not isinstance(blocks, int) or isinstance(blocks, bool) or blocks < 1:
        raise NotSupportedError(f"{name}: blocks={blocks!r} is not a positive integer", hint="a 2-D window is 1 block")
    vr, vc = (rows, cols)
    if valid_shape is not None:
        vdims = _extents(name, valid_shape, "valid_shape", (len(dims),), 0)
        vr, vc = (1, *vdims) if len(vdims) == 1 else vdims
        if vr > rows or vc > cols:
            raise NotSupportedError(f"{name}: valid_shape {tuple(vdims)} exceeds the shape {tuple(dims)}",
                                    hint="the valid region lies inside the tile: each valid extent <= the extent")
    if name in ("TLOAD", "TSTORE", "TMOV"):
        s, d = {"TLOAD": ("DDR", "Vec"), "TSTORE": ("Vec", "DDR"), "TMOV": ("Vec", "Vec")}[name]
        return tab.transfer(s, d, vr * vc * _ITEMSIZE[src], blocks)
    return tab.vector(name, src, dst, rows, cols, vr, vc, variant) if variant is not None \
        else tab.vector(name, src, dst, rows, cols, vr, vc)


__all__ = ["A2A3Table", "A5Table", "FamilyFit", "ORIGINS", "Price", "dtype_key",
           "price_instruction", "pto_mnemonic", "repeats_per_row", "table"]
