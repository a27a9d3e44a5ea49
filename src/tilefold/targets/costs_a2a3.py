"""Instruction costs of the A2/A3 chips (Ascend910B, Ascend910C), as data with their source.

``MEASURED_CSV`` is PTO-ISA's A2/A3 cost-model table, copied unchanged from
``hw-native-sys/pto-isa`` (HEAD 3186c381, 2026-08-21; a copy with its description lives in
``/work/shared/reference/pto-isa-costmodel/``): figures fitted by PTO-ISA to hardware profiling of single
PTO instructions on a 910B3 board. One instruction on a Vec tile of ``rows x cols`` costs
``round(slope * rows * cols + bias)`` cycles, looked up by the exact ``cols`` ("*": any cols / dtype).

Everything else here is a rule built on that table (``tilefold.targets.costs`` applies them; docs/backend.md
lists them): the ops and column counts the table does not cover, and the cube and data-path figures, which
come from the same measurement campaign's published facts, not from a row of the table.
"""

from __future__ import annotations

MEASURED_CSV = """\
op,dtype,cols,slope,bias
TADDS,fp32,32,0.0156,25
TADDS,fp32,48,0.0164,21
TADDS,fp32,64,0.0156,25
TADDS,fp32,80,0.0156,42
TADDS,fp32,96,0.0156,42
TADDS,fp32,112,0.0156,42
TADDS,fp32,128,0.0169,16.5
TADDS,fp32,176,0.0156,42
TADDS,fp32,336,0.0156,42
TADDS,fp16,32,0.0078,25
TADDS,fp16,64,0.0078,25
TADDS,fp16,96,0.0078,25
TADDS,fp16,128,0.0078,25
TADDS,fp16,144,0.0078,42
TADDS,fp16,160,0.0078,42
TADDS,fp16,192,0.0078,42
TADDS,fp16,208,0.0078,42
TADDS,fp16,240,0.0078,42
TADDS,fp16,272,0.0078,42
TADDS,fp16,464,0.0078,42
TADDS,fp16,496,0.0078,42
TADDS,fp16,592,0.0078,42
TADDS,fp16,1008,0.0078,42
TCOLMAX,fp32,8,2.125,24
TCOLMAX,fp32,32,0.5391,16
TCOLMAX,fp32,64,0.2734,17
TCOLMAX,fp32,96,0.3646,2
TCOLMAX,fp32,128,0.1571,10
TCOLMAX,fp16,32,0.5352,16
TCOLMAX,fp16,64,0.2695,16
TCOLMAX,fp16,96,0.1836,19
TCOLMAX,fp16,128,0.1367,17
TCOLMAX,fp16,160,0.2187,2
TCOLMAX,fp16,192,0.1823,2.3325
TCOLSUM,fp32,8,2.375,29
TCOLSUM,fp32,16,1.1958,18.271
TCOLSUM,fp32,32,0.6016,15
TCOLSUM,fp32,64,0.3047,15
TCOLSUM,fp32,96,0.2187,14
TCOLSUM,fp32,128,0.1728,8
TCOLSUM,fp32,144,0.1578,27
TCOLSUM,fp32,176,0.1314,30
TCOLSUM,fp32,208,0.1166,36
TCOLSUM,fp32,240,0.1031,36
TCOLSUM,fp32,272,0.096,35
TCOLSUM,fp32,304,0.0876,35
TCOLSUM,fp32,336,0.0833,34
TCOLSUM,fp16,16,1.1916,20.664
TCOLSUM,fp16,32,0.5977,15
TCOLSUM,fp16,64,0.3008,15
TCOLSUM,fp16,96,0.2044,15
TCOLSUM,fp16,128,0.1523,15
TCOLSUM,fp16,160,0.1312,14
TCOLSUM,fp16,208,0.1029,25
TCOLSUM,fp16,240,0.09,28
TCOLSUM,fp16,272,0.0838,27
TCOLSUM,fp16,304,0.0755,30
TCOLSUM,fp16,336,0.069,30
TCOLSUM,fp16,368,0.069,30
TCOLSUM,fp16,400,0.0616,29
TCOLSUM,fp16,432,0.057,36
TCOLSUM,fp16,464,0.0536,36
TCOLSUM,fp16,496,0.0507,36
TCOLSUM,fp16,528,0.0498,35
TCOLSUM,fp16,560,0.0474,35
TCOLSUM,fp16,592,0.0453,35
TCOLSUM,fp16,624,0.0434,35
TCOLSUM,fp16,656,0.0431,34
TDIVS,fp32,32,0.0781,45
TDIVS,fp32,48,0.0792,40
TDIVS,fp32,64,0.0781,45
TDIVS,fp32,80,0.0781,62
TDIVS,fp32,96,0.0781,62
TDIVS,fp32,112,0.0781,62
TDIVS,fp32,128,0.0794,36.5
TDIVS,fp32,208,0.0781,62
TDIVS,fp32,304,0.0781,62
TDIVS,fp16,32,0.0703,45
TDIVS,fp16,64,0.0703,45
TDIVS,fp16,80,0.0709,38
TDIVS,fp16,96,0.0703,45
TDIVS,fp16,128,0.0703,45
TDIVS,fp16,144,0.0703,62
TDIVS,fp16,160,0.0703,62
TDIVS,fp16,192,0.0703,62
TDIVS,fp16,208,0.0703,62
TDIVS,fp16,240,0.0703,62
TDIVS,fp16,272,0.0703,62
TDIVS,fp16,336,0.0703,62
TDIVS,fp16,528,0.0703,62
TDIVS,fp16,656,0.0703,62
TDIVS,fp16,784,0.0703,62
TEXP,any,*,0.0314,30.1
TMINS,fp32,32,0.0156,23
TMINS,fp32,64,0.0156,23
TMINS,fp32,96,0.0156,40
TMINS,fp32,128,0.0169,14.5
TMINS,fp32,144,0.0156,40
TMINS,fp16,32,0.0078,23
TMINS,fp16,64,0.0078,23
TMINS,fp16,96,0.0078,23
TMINS,fp16,128,0.0078,23
TMINS,fp16,160,0.0078,40
TMINS,fp16,192,0.0078,40
TMUL,fp32,32,0.0625,43
TMUL,fp32,64,0.0313,26
TMUL,fp32,80,0.0312,43
TMUL,fp32,96,0.0312,43
TMUL,fp32,112,0.0312,43
TMUL,fp32,128,0.0325,17.5
TMUL,fp32,144,0.0312,43
TMUL,fp32,176,0.0312,43
TMUL,fp32,208,0.0312,43
TMUL,fp32,240,0.0312,43
TMUL,fp32,272,0.0312,43
TMUL,fp32,304,0.0312,43
TMUL,fp32,336,0.0312,43
TMUL,fp16,32,0.0625,43
TMUL,fp16,64,0.0313,42
TMUL,fp16,80,0.025,42
TMUL,fp16,96,0.0208,42
TMUL,fp16,112,0.0179,43
TMUL,fp16,128,0.0156,26
TMUL,fp16,144,0.0156,43
TMUL,fp16,160,0.0156,43
TMUL,fp16,176,0.0156,43
TMUL,fp16,208,0.0156,43
TMUL,fp16,240,0.0156,43
TMUL,fp16,272,0.0156,43
TMUL,fp16,304,0.0156,43
TMUL,fp16,336,0.0156,43
TMUL,fp16,368,0.0156,43
TMUL,fp16,400,0.0156,43
TMUL,fp16,432,0.0156,43
TMUL,fp16,464,0.0156,43
TMUL,fp16,496,0.0156,43
TMUL,fp16,528,0.0156,43
TMUL,fp16,560,0.0156,43
TMUL,fp16,592,0.0156,43
TMUL,fp16,624,0.0156,43
TMUL,fp16,656,0.0156,43
TMULS,fp32,32,0.0156,26
TMULS,fp32,48,0.0164,21
TMULS,fp32,64,0.0156,26
TMULS,fp32,80,0.0156,43
TMULS,fp32,96,0.0156,43
TMULS,fp32,112,0.0156,43
TMULS,fp32,128,0.0169,17.5
TMULS,fp32,304,0.0156,43
TMULS,fp32,400,0.0156,43
TMULS,fp32,432,0.0156,43
TMULS,fp32,464,0.0156,43
TMULS,fp16,32,0.0078,26
TMULS,fp16,64,0.0078,26
TMULS,fp16,96,0.0078,26
TMULS,fp16,112,0.0083,23
TMULS,fp16,128,0.0078,26
TMULS,fp16,160,0.0078,43
TMULS,fp16,176,0.0078,43
TMULS,fp16,192,0.0078,43
TMULS,fp16,208,0.0078,43
TMULS,fp16,240,0.0078,43
TMULS,fp16,272,0.0078,43
TMULS,fp16,432,0.0078,43
TMULS,fp16,688,0.0079,43
TMULS,fp16,816,0.0079,43
TROWEXPAND,fp32,8,1.7596,33.4
TROWEXPAND,fp32,32,0.4375,37
TROWEXPAND,fp32,64,0.2187,37
TROWEXPAND,fp32,96,0.1562,37
TROWEXPAND,fp32,128,0.1176,34.5
TROWEXPAND,fp16,32,0.4375,37
TROWEXPAND,fp16,64,0.2187,37
TROWEXPAND,fp16,96,0.1458,37
TROWEXPAND,fp16,128,0.1094,37
TROWEXPAND,fp16,160,0.0937,37
TROWEXPAND,fp16,192,0.0781,37
TROWMAX,fp32,8,0.875,46
TROWMAX,fp32,32,0.2188,47
TROWMAX,fp32,64,0.1094,32
TROWMAX,fp32,96,0.0937,61
TROWMAX,fp32,128,0.0625,48
TROWMAX,fp32,144,0.0692,77
TROWMAX,fp32,176,0.0558,79
TROWMAX,fp32,208,0.0517,100
TROWMAX,fp32,240,0.0448,100
TROWMAX,fp32,272,0.0485,98
TROWMAX,fp32,304,0.0434,110
TROWMAX,fp32,336,0.0418,131
TROWMAX,fp16,32,0.2187,48
TROWMAX,fp16,64,0.1094,43
TROWMAX,fp16,96,0.0729,43
TROWMAX,fp16,128,0.0547,33
TROWMAX,fp16,160,0.0562,62
TROWMAX,fp16,208,0.0433,63
TROWMAX,fp16,240,0.0388,62
TROWMAX,fp16,272,0.0369,74
TROWMAX,fp16,304,0.0323,80
TROWMAX,fp16,336,0.0302,97
TROWMAX,fp16,368,0.0276,93
TROWMAX,fp16,400,0.0279,92
TROWMAX,fp16,432,0.025,101
TROWMAX,fp16,464,0.0232,119
TROWMAX,fp16,496,0.0222,119
TROWMAX,fp16,528,0.0254,111
TROWMAX,fp16,560,0.0241,110
TROWMAX,fp16,592,0.0232,127
TROWMAX,fp16,624,0.022,127
TROWMAX,fp16,656,0.0224,125
TROWSUM,fp32,8,0.875,58
TROWSUM,fp32,32,0.2187,59
TROWSUM,fp32,64,0.1094,44
TROWSUM,fp32,96,0.0938,75
TROWSUM,fp32,128,0.0625,61.5
TROWSUM,fp32,144,0.0698,92
TROWSUM,fp32,176,0.0575,93
TROWSUM,fp32,208,0.0535,99
TROWSUM,fp32,240,0.0469,99
TROWSUM,fp32,272,0.0484,104
TROWSUM,fp32,304,0.0431,104
TROWSUM,fp32,336,0.0419,121
TROWSUM,fp16,32,0.2188,62
TROWSUM,fp16,64,0.1094,57
TROWSUM,fp16,96,0.0729,57
TROWSUM,fp16,128,0.0547,47
TROWSUM,fp16,160,0.0563,78
TROWSUM,fp16,208,0.0436,79
TROWSUM,fp16,240,0.0391,79
TROWSUM,fp16,272,0.0366,94
TROWSUM,fp16,304,0.0323,102
TROWSUM,fp16,336,0.0298,115
TROWSUM,fp16,368,0.0272,111
TROWSUM,fp16,400,0.0275,103
TROWSUM,fp16,432,0.0255,103
TROWSUM,fp16,464,0.0238,121
TROWSUM,fp16,496,0.0229,121
TROWSUM,fp16,528,0.0249,111
TROWSUM,fp16,560,0.0234,106
TROWSUM,fp16,592,0.0219,140
TROWSUM,fp16,624,0.0208,140
TROWSUM,fp16,656,0.0213,126
TSQRT,any,*,0.0314,31.1
TSUB,fp32,32,0.0625,42
TSUB,fp32,64,0.0313,25
TSUB,fp32,96,0.0312,42
TSUB,fp32,128,0.0325,16.5
TSUB,fp32,144,0.0312,42
TSUB,fp32,176,0.0312,42
TSUB,fp32,208,0.0312,42
TSUB,fp32,240,0.0312,42
TSUB,fp32,272,0.0312,42
TSUB,fp32,304,0.0312,42
TSUB,fp32,336,0.0312,42
TSUB,fp16,32,0.0625,42
TSUB,fp16,64,0.0312,41
TSUB,fp16,96,0.0208,41
TSUB,fp16,128,0.0156,25
TSUB,fp16,160,0.0156,42
TSUB,fp16,176,0.0156,42
TSUB,fp16,208,0.0156,42
TSUB,fp16,240,0.0156,42
TSUB,fp16,272,0.0156,42
TSUB,fp16,304,0.0156,42
TSUB,fp16,336,0.0156,42
TSUB,fp16,368,0.0156,42
TSUB,fp16,400,0.0156,42
TSUB,fp16,432,0.0156,42
TSUB,fp16,464,0.0156,42
TSUB,fp16,496,0.0156,42
TSUB,fp16,528,0.0156,42
TSUB,fp16,560,0.0156,42
TSUB,fp16,592,0.0156,42
TSUB,fp16,624,0.0156,42
TSUB,fp16,656,0.0156,42
"""

# --- rules for what the table does not list (each priced like its nearest measured family) -----------------

#: op -> the measured families it is priced like (summed: a fused op costs its parts), and why
EXTRAPOLATED_OPS: dict[str, tuple[tuple[str, ...], str]] = {
    # binary element-wise: the measured binary ops TSUB / TMUL (two operand streams per repeat)
    **{op: (("TSUB",), "binary element-wise, priced like TSUB") for op in (
        "TADD", "TMAXIMUM", "TMINIMUM", "TAND", "TOR", "TXOR", "TSHL", "TSHR", "TCMP", "TPRELU", "TADDC",
        "TSUBC", "TADDSC", "TSUBSC", "TPARTADD", "TPARTMAX", "TPARTMIN")},
    **{op: (("TMUL",), "binary element-wise, priced like TMUL") for op in ("TPARTMUL", "TSEL", "TSELS")},
    # division and remainder: the measured division TDIVS
    **{op: (("TDIVS",), "division-class, priced like TDIVS") for op in (
        "TDIV", "TREM", "TFMOD", "TREMS", "TFMODS", "TRECIP", "TRSQRT")},
    # tile-scalar and single-pass unary ops: the measured one-pass ops TADDS / TMULS
    **{op: (("TADDS",), "one pass over the tile, priced like TADDS") for op in (
        "TSUBS", "TMAXS", "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS", "TCMPS", "TEXPANDS", "TABS", "TNEG",
        "TRELU", "TNOT", "TFILLPAD", "TCVT", "TCOLEXPAND")},
    # concat / assemble copy each element of their operands once inside UB: one pass over the result
    **{op: (("TADDS",), "a one-pass copy inside UB, priced like TADDS") for op in ("TCONCAT", "TASSEMBLE")},
    **{op: (("TMULS",), "tile-scalar multiply-class, priced like TMULS") for op in ("TLRELU",)},
    # transcendental: the measured TEXP
    **{op: (("TEXP",), "transcendental, priced like TEXP") for op in ("TLOG", "TSIN", "TCOS")},
    # reductions: the measured row / column reductions
    **{op: (("TROWMAX",), "row reduction, priced like TROWMAX") for op in (
        "TROWMIN", "TROWPROD", "TROWARGMAX", "TROWARGMIN")},
    **{op: (("TCOLMAX",), "column reduction, priced like TCOLMAX") for op in (
        "TCOLMIN", "TCOLPROD", "TCOLARGMAX", "TCOLARGMIN", "TTRANS")},
    # fused row broadcasts: the measured TROWEXPAND, then the binary op on the expanded tile
    **{op: (("TROWEXPAND", fam), f"row broadcast then the binary op: TROWEXPAND + {fam}") for op, fam in (
        ("TROWEXPANDADD", "TSUB"), ("TROWEXPANDSUB", "TSUB"), ("TROWEXPANDMUL", "TMUL"), ("TROWEXPANDDIV", "TDIVS"),
        ("TROWEXPANDMAX", "TSUB"), ("TROWEXPANDMIN", "TSUB"))},
    "TROWEXPANDEXPDIF": (("TROWEXPAND", "TSUB", "TEXP"), "row broadcast, subtract, exp: TROWEXPAND + TSUB + TEXP"),
    # fused column broadcasts: the broadcast row is one operand stream of a binary op
    **{op: ((fam,), f"column broadcast: a binary pass with one operand row reused, priced like {fam}")
       for op, fam in (("TCOLEXPANDADD", "TSUB"), ("TCOLEXPANDSUB", "TSUB"), ("TCOLEXPANDMUL", "TMUL"),
                       ("TCOLEXPANDDIV", "TDIVS"), ("TCOLEXPANDMAX", "TSUB"), ("TCOLEXPANDMIN", "TSUB"))},
    "TCOLEXPANDEXPDIF": (("TSUB", "TEXP"), "column broadcast, subtract, exp: TSUB + TEXP"),
    # the index / generator ops of issue 19 (no profiling of any of them: each priced by what it does)
    **{op: (("TADDS",), "one pass writing the result, priced like TADDS") for op in (
        "TCI", "TEXPANDCLONE", "TFILLPADEXPAND", "TTRI")},
    "TRANDOM": (("TMUL", "TMUL", "TMUL", "TADDS", "TADDS", "TADDS", "TADDS"),
                "the splitmix64 hash of a counter per element: 3 multiplies (TMUL) + 4 add / xor-shift passes (TADDS)"),
    "TSORT32": (("TSUB",) * 15 + ("TSEL",) * 15,
                "a bitonic network on 32 elements: 15 compare-exchange stages, each a compare (TSUB) and a select "
                "(TSEL, by A5_RATIO_RULES)"),
    # the scans / full sort of HIVM's vcumsum / vcumprod / vsort (tilefold.ops.scan_ops; no profiling): a scan is a
    # dependent add (multiply) per element along its axis, priced like the per-element TROWEXPAND plus the
    # pass writing the result; a full sort is the 32-element network plus one 4-way merge pass (exact for lines of
    # up to 128 elements; a longer line needs more merge passes than priced)
    "TCUMSUM": (("TROWEXPAND", "TSUB"),
                "a dependent add per element along the axis (per-element family) and the add (TSUB)"),
    "TCUMPROD": (("TROWEXPAND", "TMUL"),
                 "a dependent multiply per element along the axis (per-element family) and the multiply (TMUL)"),
    "TSORT": (("TSUB",) * 15 + ("TSEL",) * 15 + ("TSUB", "TSEL", "TSUB", "TSEL"),
              "a 32-element bitonic network (as TSORT32) and one 4-way merge pass (as TMRGSORT)"),
    "TMRGSORT": (("TSUB", "TSEL", "TSUB", "TSEL"),
                 "a 4-way merge: two compare-select levels per output element (TSUB + TSEL, TSEL by A5_RATIO_RULES)"),
    # an indexed access inside UB reads (or writes) one element per index: the strided per-element family
    **{op: (("TROWEXPAND", "TADDS"), "one indexed element access per result element (priced like the per-element "
                                     "TROWEXPAND) and one pass writing the result (TADDS)") for op in (
        "TGATHER", "TSCATTER")},
    # a block gather reads whole 32-byte blocks (one aligned UB block per offset, the granule of a vector repeat):
    # one pass over the result, priced like TADDS, not the per-element indexed family
    "TGATHERB": (("TADDS",), "32-byte blocks by byte offset: one block-granular pass writing the result, priced "
                             "like TADDS"),
    "TSCATTERUPDATE": (("TADDS", "TADDS", "TADDS", "TMULS", "TROWEXPAND", "TSUB", "TADDS", "TROWEXPAND", "TADDS",
                        "TADDS", "TADDS", "TROWEXPAND", "TADDS", "TADDS", "TSEL"),
                       "PyPTO's lowering of a whole-row update (ConvertTensorToTileOps page): tci, texpands, "
                       "tcolexpand, tmuls, trowexpandadd, texpands, tscatter, texpands x2, tscatter, tcmps, tsel"),
}

#: ops A2/A3's table lacks and A5's table measures: op -> (the A2/A3 family it is priced like, measured on both
#: targets; the dtypes the rule covers, None for any; why). The price is the family's start-up plus the family's
#: work above it scaled by A5's measured per-repeat ratio of the op to the family (the 2-D ``param0`` of each,
#: ``A5Table.per_repeat``): how much more one repeat of the op costs than one of the family, carried from the
#: target that measures both. Checked on the six ops measured on both targets (``benchmarks/cost_fidelity.py``,
#: "A2/A3 from a family by A5's ratio"): predicting each from each other one, 87 % of 600 points within +-25 %,
#: against 41 % for the family unscaled. Division does not carry over (A5 divides 2.4x faster relative to its
#: other ops than A2/A3), so no rule here scales from or to TDIVS. A dtype A5 does not list takes A5's measured
#: dtype of its element size (A5's own rule); outside the listed dtypes the op takes its ``EXTRAPOLATED_OPS``
#: rule (integer and FP8 conversions: TADDS).
A5_RATIO_RULES: dict[str, tuple[str, tuple[str, ...] | None, str]] = {
    "TSEL": ("TMUL", None, "select: TMUL's work scaled by A5's TSEL / TMUL per repeat"),
    "TRSQRT": ("TSQRT", None, "reciprocal square root: TSQRT's work scaled by A5's TRSQRT / TSQRT per repeat"),
    "TNEG": ("TMINS", None, "unary one pass: TMINS's work scaled by A5's TNEG / TMINS per repeat"),
    "TCVT": ("TMINS", ("fp32", "fp16", "bf16"), "conversion: TMINS's work scaled by A5's TCVT / TMINS per repeat "
                                                "for the same dtype pair"),
}

#: (op, implementation variant) -> (the measured family whose start-up the variant keeps, per-dtype ratio of its
#: work to the default's, why). TRECIP high_precision: no A2/A3 profiling; the ratio is A5's measured per-repeat
#: cost of the high-precision TRECIP to the default (costs_a5 MEASURED_CSV, 1-D rows: FP32 345.21788 / 1.9081456,
#: FP16 168.14754 / 3.5491803), applied to A2/A3's default TRECIP (priced like TDIVS) above TDIVS's start-up
VARIANT_RULES: dict[tuple[str, str], tuple[str, dict[str, float], str]] = {
    ("TRECIP", "high_precision"): ("TDIVS", {"fp32": 345.21788 / 1.9081456, "fp16": 168.14754 / 3.5491803},
                                   "A5's measured high-precision / default per-repeat ratio on A2/A3's default"),
}

#: dtype of the table a dtype it does not list is priced with (same element size; the repeat count uses the
#: real element size)
DTYPE_BY_ITEMSIZE: dict[int, str] = {4: "fp32", 2: "fp16", 1: "fp16", 8: "fp32"}

SOURCE = "PTO-ISA A2/A3 cost model (pto-isa 3186c381), fitted to single-instruction profiling on 910B3"
FACTS = "PTO-ISA A2/A3 profiling facts (reference/pto-isa-costmodel/README.md)"

#: the cube: ``startup + ceil(m/16) * ceil(k / (32 / elem_bytes)) * ceil(n/16) * factor`` (factor 2 for FP32)
CUBE = {"startup": 6, "fractal_m": 16, "fractal_n": 16, "k_row_bytes": 32, "fp32_factor": 2,
        "origin": "measured", "source": FACTS}

#: scalar-pipe instructions priced by name: name -> (cycles, origin, source)
SCALAR_INSTRUCTIONS: dict[str, tuple[int, str, str]] = {
    "pipe_setup": (1, "assumed", "no measurement: reserve_buffer / import_peer_buffer / a*_initialize_pipe each write "
                   "a pipe's configuration registers once, priced as one scalar operation"),
}

#: data paths: (src, dst) -> (bytes per cycle, latency per contiguous block, origin, source)
PATHS: dict[tuple[str, str], tuple[float, float, str, str]] = {
    ("DDR", "Vec"): (128.0, 266.0, "measured", FACTS + ": ~266 + bytes/128 for one contiguous window, the "
                     "latency again per block"),
    ("DDR", "Mat"): (128.0, 266.0, "extrapolated", "priced like GM -> UB (same MTE2 engine)"),
    ("Vec", "DDR"): (128.0, 266.0, "extrapolated", "priced like GM -> UB (the mirror MTE3 transfer)"),
    ("Acc", "DDR"): (128.0, 266.0, "extrapolated", "priced like GM -> UB (FIXPIPE to GM)"),
    ("Vec", "Vec"): (32.0, 25.0, "extrapolated", "UB -> UB moves measured 8x the one-repeat-per-256-B price "
                     "(issue 18 profiling summary): 32 B per cycle, TADDS's start-up"),
    ("Mat", "Left"): (256.0, 24.0, "assumed", "no measurement: on-chip, several times the GM path"),
    ("Mat", "Right"): (256.0, 24.0, "assumed", "no measurement: on-chip, several times the GM path"),
    ("Mat", "Bias"): (64.0, 24.0, "assumed", "no measurement"),
    ("Mat", "Mat"): (128.0, 32.0, "assumed", "no measurement"),
    ("Acc", "Vec"): (128.0, 48.0, "assumed", "no measurement (no such path on A2/A3)"),
}
