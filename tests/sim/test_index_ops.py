"""The index and generator ops of issue 19 through compile + simulate (and golden), against numpy written here:
out-of-range indices fault (never wrap), mgather's policies, mscatter's mask, the pricing rules (coalesced row
DMAs, a free prefetch), both source forms (``@pl.program`` and ``@pl.jit``) and PyPTO's spellings."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.sim import simulate
from tilefold.sim.faults import OutOfBounds


def _jit(params: str, body: list[str], ret: str = "out") -> str:
    lines = "\n".join(" " * 8 + b for b in body)
    return (f"import tilefold.language as pl\n\n\n@pl.jit\ndef k({params}):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n{lines}\n    return {ret}\n")


def _run(src: str, inputs: dict[str, np.ndarray], target: str = "Ascend910B"):
    program = pl.parse(src, "<index ops>")
    golden = run_program(program, {k: np.array(v, copy=True) for k, v in inputs.items()})
    compiled = compile(program, target=target)
    sim = simulate(compiled.pto, {k: np.array(v, copy=True) for k, v in inputs.items()}, compiled.target)
    return golden, sim


TABLE = np.arange(32 * 16, dtype=np.float32).reshape(32, 16) * 0.5 - 7.0
MGATHER = "a0: pl.Tensor[[32, 16], pl.FP32], a1: pl.Tensor[[8, 1], pl.INT32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]"


def _mgather_src(option: str = "") -> str:
    return _jit(MGATHER, ["i = pl.load(a1, [0, 0], [8, 1])", f"pl.store(pl.mgather(a0, i{option}), [0, 0], out)"])


def test_mgather_gathers_rows_in_index_order():
    rows = [5, 5, 0, 31, 17, 2, 9, 30]
    golden, sim = _run(_mgather_src(), {"a0": TABLE, "a1": np.array(rows, np.int32).reshape(8, 1),
                                        "out": np.zeros((8, 16), np.float32)})
    want = np.stack([TABLE[r] for r in rows])
    np.testing.assert_array_equal(golden["out"], want)
    np.testing.assert_array_equal(sim.outputs["out"], want)


@pytest.mark.parametrize("bad", [32, -1, 1000])
def test_mgather_out_of_range_row_is_a_fault_not_a_wrap(bad):
    idx = np.array([0, 1, bad, 3, 4, 5, 6, 7], np.int32).reshape(8, 1)
    inputs = {"a0": TABLE, "a1": idx, "out": np.zeros((8, 16), np.float32)}
    program = pl.parse(_mgather_src(), "<mgather>")
    with pytest.raises(OutOfBounds) as info:
        compiled = compile(program, target="Ascend910B")
        simulate(compiled.pto, inputs, compiled.target)
    assert f"row index {bad} (entry 2 of the index tile" in str(info.value) and "gather_oob" in info.value.hint
    with pytest.raises(TilefoldError, match=f"index {bad} at element"):
        run_program(program, inputs)


@pytest.mark.parametrize("policy", ["zero", "clamp"])
def test_mgather_policies_for_out_of_range_rows(policy):
    rows = [3, -2, 31, 32, 99, 0, 7, 16]
    golden, sim = _run(_mgather_src(f", gather_oob={policy!r}"),
                       {"a0": TABLE, "a1": np.array(rows, np.int32).reshape(8, 1), "out": np.zeros((8, 16), np.float32)})
    if policy == "zero":
        want = np.stack([TABLE[r] if 0 <= r < 32 else np.zeros(16, np.float32) for r in rows])
    else:
        want = np.stack([TABLE[min(max(r, 0), 31)] for r in rows])
    np.testing.assert_array_equal(golden["out"], want)
    np.testing.assert_array_equal(sim.outputs["out"], want)


def test_mgather_refuses_an_unknown_policy_where_it_is_written():
    with pytest.raises(TilefoldError, match="gather_oob='wrap' is not a policy") as info:
        pl.parse(_mgather_src(", gather_oob='wrap'"), "<mgather>")
    assert info.value.span is not None and info.value.span.line == 8 and "'clamp'" in info.value.hint


def test_coalesce_prices_consecutive_rows_as_one_block():
    idx = np.arange(4, 12, dtype=np.int32).reshape(8, 1)  # one run of consecutive rows
    cycles = {}
    for option in ("", ", coalesce=True"):
        _, sim = _run(_mgather_src(option), {"a0": TABLE, "a1": idx, "out": np.zeros((8, 16), np.float32)})
        np.testing.assert_array_equal(sim.outputs["out"], TABLE[4:12])
        cycles[option] = sim.cycles
    assert cycles[", coalesce=True"] < cycles[""]  # 8 row latencies become one


MSCATTER = "a0: pl.Tensor[[8, 16], pl.FP32], a1: pl.Tensor[[8, 1], pl.INT32], out: pl.InOut[pl.Tensor[[32, 16], pl.FP32]]"


@pytest.mark.parametrize("assigned", [False, True])
def test_mscatter_writes_rows_masks_negative_indices_and_keeps_the_later_write(assigned):
    src = np.arange(8 * 16, dtype=np.float32).reshape(8, 16) + 1000
    rows = [4, -1, 31, 4, 0, -9, 12, 2]
    call = "pl.tile.mscatter(x, i, out)"
    text = _jit(MSCATTER, ["x = pl.load(a0, [0, 0], [8, 16])", "i = pl.load(a1, [0, 0], [8, 1])",
                           f"out = {call}" if assigned else call])
    golden, sim = _run(text, {"a0": src, "a1": np.array(rows, np.int32).reshape(8, 1), "out": TABLE})
    want = TABLE.copy()
    for k, r in enumerate(rows):
        if r >= 0:
            want[r] = src[k]
    np.testing.assert_array_equal(golden["out"], want)
    np.testing.assert_array_equal(sim.outputs["out"], want)


def test_mscatter_past_the_last_row_is_a_fault():
    text = _jit(MSCATTER, ["x = pl.load(a0, [0, 0], [8, 16])", "i = pl.load(a1, [0, 0], [8, 1])",
                           "pl.tile.mscatter(x, i, out)"])
    compiled = compile(pl.parse(text, "<mscatter>"), target="Ascend910B")
    with pytest.raises(OutOfBounds, match="row index 32 .*leaves tensor @out of 32 rows"):
        simulate(compiled.pto, {"a0": np.zeros((8, 16), np.float32),
                                "a1": np.array([0, 1, 2, 32, 4, 5, 6, 7], np.int32).reshape(8, 1), "out": TABLE},
                 compiled.target)


UB = "a0: pl.Tensor[[16, 32], pl.FP32], a1: pl.Tensor[[8, 32], pl.INT32], out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]"


@pytest.mark.parametrize("op,extra", [("gather", ""), ("scatter", ", x")])
def test_ub_index_out_of_range_is_a_device_fault(op, extra):
    base = np.zeros((16, 32), np.float32)
    idx = np.zeros((8, 32), np.int32)
    idx[5, 7] = 16  # one past the last row
    if op == "gather":
        body = ["x = pl.load(a0, [0, 0], [16, 32])", "i = pl.load(a1, [0, 0], [8, 32])",
                "pl.store(pl.tile.gather(x, 0, i), [0, 0], out)"]
        params = UB
    else:
        body = ["x = pl.load(a0, [0, 0], [16, 32])", "i = pl.load(a1, [0, 0], [8, 32])",
                "s = pl.tile.slice(x, [8, 32], [0, 0])", "pl.store(pl.tile.scatter(x, 0, i, s), [0, 0], out)"]
        params = UB.replace("out: pl.Out[pl.Tensor[[8, 32]", "out: pl.Out[pl.Tensor[[16, 32]")
    program = pl.parse(_jit(params, body), f"<{op}>")
    compiled = compile(program, target="Ascend910B")
    inputs = {"a0": base, "a1": idx, "out": np.zeros((16 if op == "scatter" else 8, 32), np.float32)}
    # TileAndBindSubBlock splits the gather's rows (index rows 4..7 are sub-block 1's rows 0..3): the device still
    # names the element as the program writes it, [5, 7], not [1, 7] inside sub-block 1's part
    with pytest.raises(OutOfBounds, match=r"index 16 at element \[5, 7\] of the index tile is outside \[0, 16\)") \
            as fault:
        simulate(compiled.pto, inputs, compiled.target)
    if op == "gather":  # the message says which sub-block faulted and which part of the index tile it holds
        assert "on vector sub-block 1, which holds elements [4, 8) of axis 0" in str(fault.value)
    with pytest.raises(TilefoldError, match="index 16 at element") as info:
        run_program(program, inputs)
    assert info.value.span is not None and "bound or clamp the indices" in info.value.hint


def test_scatter_update_row_out_of_range_is_a_fault():
    text = _jit("a0: pl.Tensor[[16, 32], pl.FP32], a1: pl.Tensor[[1, 4], pl.INT32], "
                "a2: pl.Tensor[[4, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                ["out[:] = pl.scatter_update(a0, -2, a1, a2)"])
    program = pl.parse(text, "<scatter_update>")
    compiled = compile(program, target="Ascend910B")
    inputs = {"a0": np.zeros((16, 32), np.float32), "a1": np.array([[1, 2, 16, 3]], np.int32),
              "a2": np.ones((4, 32), np.float32), "out": np.zeros((16, 32), np.float32)}
    with pytest.raises(OutOfBounds, match="index 16"):
        simulate(compiled.pto, inputs, compiled.target)


def test_scatter_update_refuses_another_dim():
    text = _jit("a0: pl.Tensor[[16, 32], pl.FP32], a1: pl.Tensor[[1, 4], pl.INT32], "
                "a2: pl.Tensor[[4, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                ["out[:] = pl.scatter_update(a0, -1, a1, a2)"])
    with pytest.raises(TilefoldError, match="dim=-1 is not an axis") as info:
        pl.parse(text, "<scatter_update>")
    assert "-2" in info.value.hint


def test_prefetch_changes_nothing_and_costs_nothing():
    a = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    params = "a0: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]"
    copy = ["x = pl.load(a0, [0, 0], [32, 32])", "pl.store(x, [0, 0], out)"]
    _, plain = _run(_jit(params, copy), {"a0": a, "out": np.zeros_like(a)})
    for hint in ("pl.prefetch(a0, [0, 0], [32, 32])", "pl.prefetch(a0)"):
        _, hinted = _run(_jit(params, [hint, *copy]), {"a0": a, "out": np.zeros_like(a)})
        np.testing.assert_array_equal(hinted.outputs["out"], a)
        assert hinted.cycles == plain.cycles


def test_prefetch_window_outside_the_tensor_is_refused():
    params = "a0: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]"
    with pytest.raises(TilefoldError, match=r"prefetch window \[16:48\) on axis 0 is outside the tensor extent 32"):
        pl.parse(_jit(params, ["pl.prefetch(a0, [16, 0], [32, 32])", "out[:] = pl.exp(a0)"]), "<prefetch>")


def _splitmix64(x: int) -> int:
    m = (1 << 64) - 1
    x = (x + 0x9E3779B97F4A7C15) & m
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
def test_random_is_counter_based_and_the_same_on_every_target(target):
    params = "out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]"
    golden, sim = _run(_jit(params, ["out[:] = pl.random([8, 32], dtype=pl.FP32, seed=42)"]),
                       {"out": np.zeros((8, 32), np.float32)}, target)
    want = np.array([(_splitmix64((42 << 32) + k) >> 40) / 2.0 ** 24 for k in range(256)], np.float32).reshape(8, 32)
    np.testing.assert_array_equal(sim.outputs["out"], want)
    np.testing.assert_array_equal(golden["out"], want)
    assert 0.0 <= want.min() and want.max() < 1.0 and len(np.unique(want)) == 256


def test_random_tile_form_and_seed_choice():
    params = "out: pl.Out[pl.Tensor[[8, 32], pl.INT32]]"
    outs = []
    for seed in (1, 2):
        _, sim = _run(_jit(params, [f"pl.store(pl.tile.random([8, 32], dtype=pl.INT32, seed={seed}), [0, 0], out)"]),
                      {"out": np.zeros((8, 32), np.int32)})
        want = np.array([_splitmix64((seed << 32) + k) & 0xFFFFFFFF for k in range(256)], np.uint64)
        np.testing.assert_array_equal(sim.outputs["out"], want.astype(np.uint32).view(np.int32).reshape(8, 32))
        outs.append(sim.outputs["out"])
    assert not np.array_equal(outs[0], outs[1])


def test_arange_is_pypto_s_name_of_ci():
    params = "out: pl.Out[pl.Tensor[[4, 32], pl.INT32]]"
    golden, sim = _run(_jit(params, ["out[:] = pl.arange(-10, [4, 32], dtype=pl.INT32)"]),
                       {"out": np.zeros((4, 32), np.int32)})
    want = (np.arange(128) - 10).astype(np.int32).reshape(4, 32)
    np.testing.assert_array_equal(golden["out"], want)
    np.testing.assert_array_equal(sim.outputs["out"], want)


PROGRAM = """import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[2, 64], pl.FP32], table: pl.Tensor[[32, 16], pl.FP32],
               sorted_out: pl.Out[pl.Tensor[[2, 128], pl.FP32]],
               rows_out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[2, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [2, 64])
        i = pl.tile.ci(0, [2, 64], dtype=pl.INT32)
        s = pl.tile.sort32(t, i)
        s = pl.tile.mrgsort(s, block_len=32)
        sorted_out = pl.store(s, [0, 0], sorted_out)
        r = pl.tile.ci(28, [4, 1], dtype=pl.INT32, descending=True)
        g = pl.tile.mgather(table, r)
        rows_out = pl.store(g, [0, 0], rows_out)
        return sorted_out
"""


def test_program_form_sort_merge_and_row_gather():
    x = np.random.default_rng(5).standard_normal((2, 64)).astype(np.float32)
    inputs = {"x": x, "table": TABLE, "sorted_out": np.zeros((2, 128), np.float32),
              "rows_out": np.zeros((4, 16), np.float32)}
    golden, sim = _run(PROGRAM, inputs)
    want = np.zeros((2, 128), np.float32)
    for r in range(2):
        blocks = [sorted(range(b, b + 32), key=lambda j: (-x[r, j], j - b)) for b in (0, 32)]
        # mrgsort(block_len=32) merges the two sorted runs of the row (its group holds up to 4 runs)
        merged = sorted(blocks[0] + blocks[1], key=lambda j: (-x[r, j], 0 if j < 32 else 1))
        for k, j in enumerate(merged):
            want[r, 2 * k] = x[r, j]
            want[r, 2 * k + 1] = np.array([64 * r + j], np.uint32).view(np.float32)[0]  # ci: row-major numbers
    for got in (golden, sim.outputs):
        np.testing.assert_array_equal(got["sorted_out"].view(np.uint32), want.view(np.uint32))
        np.testing.assert_array_equal(got["rows_out"], TABLE[[28, 27, 26, 25]])


def test_sort32_refuses_a_row_that_is_not_whole_blocks():
    src = PROGRAM.replace("[2, 64]", "[2, 48]").replace("[2, 128]", "[2, 96]")
    with pytest.raises(TilefoldError, match="48 columns, not a multiple of 32") as info:
        pl.parse(src, "<sort32>")
    assert info.value.hint and "-inf" in info.value.hint


def test_the_new_ops_are_no_longer_refused_and_cost_rules_exist():
    from tilefold.ops.catalog_ops import UNSUPPORTED
    from tilefold.targets.costs import table

    for name in ("sort32", "mrgsort", "gather", "scatter", "scatter_update", "mscatter", "mgather", "random", "ci",
                 "arange", "prefetch", "expand_clone", "fillpad_expand"):
        assert name not in UNSUPPORTED
    for t in ("a2a3", "a5"):
        for op in ("TCI", "TRANDOM", "TSORT32", "TMRGSORT", "TGATHER", "TSCATTER", "TSCATTERUPDATE", "TEXPANDCLONE",
                   "TFILLPADEXPAND"):
            assert table(t).vector(op, "fp32", "fp32", 16, 64, 16, 64).origin == "extrapolated"


def test_sort32_takes_fp32_or_fp16_values_only():
    src = PROGRAM.replace("x: pl.Tensor[[2, 64], pl.FP32]", "x: pl.Tensor[[2, 64], pl.BF16]")
    with pytest.raises(TilefoldError, match="the source is BF16; the sort instructions take FP32 or FP16") as info:
        pl.parse(src, "<sort32>")
    assert "pl.tile.cast" in info.value.hint
    src = PROGRAM.replace("x: pl.Tensor[[2, 64], pl.FP32]", "x: pl.Tensor[[2, 64], pl.INT32]")
    with pytest.raises(TilefoldError, match="tile.sort32 is defined for floating-point operands only"):
        pl.parse(src, "<sort32>")


@pytest.mark.parametrize("rows,bad,half", [(16, (13, 3), "[8, 16) of axis 0"), (3, (2, 40), "[32, 64) of axis 1")])
def test_a_split_gathers_fault_names_the_programs_element(rows, bad, half):
    """A gather along columns (dim 1) split on rows (16 rows: sub-block 1 holds rows 8..15, so [13, 3] is its
    [5, 3]) or on columns (3 rows are odd: sub-block 1 holds columns 32..63, so [2, 40] is its [2, 8]): the fault
    names the element as the program writes it."""
    params = (f"a0: pl.Tensor[[{rows}, 64], pl.FP32], a1: pl.Tensor[[{rows}, 64], pl.INT32], "
              f"out: pl.Out[pl.Tensor[[{rows}, 64], pl.FP32]]")
    body = [f"x = pl.load(a0, [0, 0], [{rows}, 64])", f"i = pl.load(a1, [0, 0], [{rows}, 64])",
            "pl.store(pl.tile.gather(x, 1, i), [0, 0], out)"]
    program = pl.parse(_jit(params, body), "<split gather>")
    compiled = compile(program, target="Ascend910B")
    assert "sub_block_half" in compiled.pto.text()  # the gather really was split
    idx = np.zeros((rows, 64), np.int32)
    idx[bad] = 64  # one past the last column
    inputs = {"a0": np.zeros((rows, 64), np.float32), "a1": idx, "out": np.zeros((rows, 64), np.float32)}
    where = rf"\[{bad[0]}, {bad[1]}\]"
    with pytest.raises(OutOfBounds, match=rf"index 64 at element {where} of the index tile is outside \[0, 64\)") \
            as fault:
        simulate(compiled.pto, inputs, compiled.target)
    assert f"on vector sub-block 1, which holds elements {half}" in str(fault.value)
    with pytest.raises(TilefoldError, match=rf"index 64 at element {where}"):  # golden runs the program unsplit
        run_program(program, inputs)
