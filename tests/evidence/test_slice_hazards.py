"""Evidence that every hazard CanonicalizeTileSlice guards against is real on the simulator.

Each kernel in ``examples/evidence`` runs twice: without the pass (``skip_passes=("CanonicalizeTileSlice",)``,
``codegen="faithful"``: what the unguarded compiler emits) it computes a wrong result or traps; with the
default pipeline it equals the golden result. Strict codegen refuses the hazardous materializations.
"""

from pathlib import Path

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.backend import InternalCheckError
from tilefold.backend.pto import For, If, TExtract, While
from tilefold.compiler import compile
from tilefold.sim import DeviceHang, UnsupportedDataPath
from tilefold.testing import evidence_config, random_inputs, run_and_compare

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "evidence"
SKIP = ("CanonicalizeTileSlice",)


def load(name: str):
    return pl.parse_file(str(EXAMPLES / name))


def unsafe(prog, inputs, target="Ascend910B"):
    return run_and_compare(prog, inputs, target=target, skip_passes=SKIP, codegen="faithful")


def safe(prog, inputs, target="Ascend910B"):
    rep = run_and_compare(prog, inputs, target=target)
    assert rep.fault is None, rep.summary()
    assert rep.matches, rep.summary()
    return rep


def _flat(body):
    for ins in body:
        yield ins
        if isinstance(ins, (For, While)):
            yield from _flat(ins.body)
        elif isinstance(ins, If):
            yield from _flat(ins.then_body)
            yield from _flat(ins.else_body)


# --- #1640 ---------------------------------------------------------------------------------------


def _inputs_1640(prog):
    inputs = random_inputs(prog, seed=3)
    inputs["row_off"] = 5
    return inputs


def test_1640_dynamic_offset_window_lands_on_row_0_without_the_pass():
    prog = load("issue_1640_dynamic_row.py")
    rep = unsafe(prog, _inputs_1640(prog))
    assert rep.fault is None and not rep.matches
    got, want = rep.outputs["out"], rep.golden_outputs["out"]
    assert rep.mismatch_output == "out" and rep.first_mismatch[0] == 0
    # the materialized row overwrote row 0 of the live source: row 0 of the result is wrong ...
    assert not np.allclose(got[0], want[0])
    # ... and it is exactly the selected row times itself (the source row 0 now holds row `row_off`)
    x = _inputs_1640(prog)["x"]
    np.testing.assert_allclose(got[0], x[5] * x[5], rtol=1e-6)


def test_1640_correct_with_the_pass():
    prog = load("issue_1640_dynamic_row.py")
    safe(prog, _inputs_1640(prog))


# --- #2010 ---------------------------------------------------------------------------------------


def _2010():
    prog = load("issue_2010_column_window.py")
    target, scalars, options = evidence_config("issue_2010_column_window.py")
    return prog, random_inputs(prog, seed=4, scalars=scalars), target, options


def _row_by_row_repack(x, col, width):
    """The source tile after the hardware's row-by-row copy of its window x[:, col:col + width] into a dense
    buffer that starts at the window's first element (the slice's own buffer, inside the source)."""
    flat = x.ravel().copy()
    rows, pitch = x.shape
    for r in range(rows):
        row = flat[r * pitch + col:r * pitch + col + width].copy()  # read the row as it is now ...
        flat[col + r * width:col + (r + 1) * width] = row  # ... and write it densely
    return flat.reshape(x.shape)


def test_2010_column_window_destroys_source_except_row_0_without_the_pass():
    prog, inputs, target, options = _2010()
    rep = run_and_compare(prog, inputs, target=target, skip_passes=SKIP, codegen="faithful", options=options)
    assert rep.fault is None and not rep.matches
    x = inputs["x"]
    t_after = rep.outputs["t_after"]
    # the source tile, read back after the col_expand, is exactly the in-place repack of its window ...
    np.testing.assert_array_equal(t_after, _row_by_row_repack(x, 64, 64))
    # ... so row 0 survives (its dense destination is its source) and every source row the dense buffer
    # reaches (elements 64 .. 64 + 16 * 64: rows 1-8) is destroyed; rows 9-15 lie past the buffer
    np.testing.assert_array_equal(t_after[0], x[0])
    reached = range(1, (64 + 16 * 64 - 1) // 128 + 1)
    assert list(reached) == list(range(1, 9))
    for r in reached:
        assert not np.array_equal(t_after[r], x[r]), r
    np.testing.assert_array_equal(t_after[9:], x[9:])
    # the kernel's result reads t's low half after the repack: right exactly where the source survived
    got, want = rep.outputs["out"], rep.golden_outputs["out"]
    assert rep.mismatch_output in ("out", "t_after")
    for r in range(16):
        assert np.allclose(got[r], want[r], rtol=1e-6) == (r == 0 or r > 8), r


def test_2010_correct_with_the_pass():
    prog, inputs, target, options = _2010()
    rep = run_and_compare(prog, inputs, target=target, options=options)
    assert rep.fault is None and rep.matches, rep.summary()
    np.testing.assert_array_equal(rep.outputs["t_after"], inputs["x"])  # the source is untouched


def test_2010_correct_with_the_pass_and_the_sub_block_split():
    prog, inputs, target, _ = _2010()
    safe(prog, inputs, target)


# --- #1789 ---------------------------------------------------------------------------------------


def test_1789_unaligned_column_hangs_without_the_pass():
    prog = load("issue_1789_unaligned_column.py")
    rep = unsafe(prog, random_inputs(prog, seed=5))
    assert isinstance(rep.fault, DeviceHang), rep.summary()
    assert rep.fault.address % 32 == 4
    assert rep.result == "trap"


def test_1789_unaligned_column_correct_with_the_pass():
    prog = load("issue_1789_unaligned_column.py")
    safe(prog, random_inputs(prog, seed=5))


@pytest.mark.parametrize("skip", [(), SKIP])
def test_1789_column_8_is_aligned_zero_copy_either_way(skip):
    prog = load("issue_1789_aligned_column.py")
    rep = run_and_compare(prog, random_inputs(prog, seed=6), skip_passes=skip,
                          codegen="faithful" if skip else "strict")
    assert rep.fault is None and rep.matches, rep.summary()
    # zero copy: no extract / materialization was needed
    assert not any(isinstance(i, TExtract) for i in _flat(rep.compiled.pto.entry_kernel.body))


# --- Mat slice into a materializing consumer on Ascend910C ----------------------------------------


def test_mat_slice_materialization_is_an_l1_to_l1_trap_on_910c():
    prog = load("mat_slice_l1_to_l1.py")
    rep = unsafe(prog, random_inputs(prog, seed=7), target="Ascend910C")
    assert isinstance(rep.fault, UnsupportedDataPath), rep.summary()
    assert "Mat -> Mat" in str(rep.fault)


@pytest.mark.parametrize("target", ["Ascend910C", "Ascend910B"])
def test_mat_slice_correct_with_the_pass(target):
    prog = load("mat_slice_l1_to_l1.py")
    safe(prog, random_inputs(prog, seed=7), target=target)


# --- Acc row window as matmul_acc destination -----------------------------------------------------


def test_acc_row_window_silently_corrupts_without_the_pass():
    prog = load("acc_row_window.py")
    rep = unsafe(prog, random_inputs(prog, seed=8))
    assert rep.fault is None and not rep.matches  # silent: no trap
    got, want = rep.outputs["out"], rep.golden_outputs["out"]
    np.testing.assert_allclose(got[:, :16], want[:, :16], rtol=1e-5, atol=1e-5)  # first column block right
    assert not np.allclose(got[:, 16:], want[:, 16:])  # the second one landed on the wrong row tile


def test_acc_row_window_rejected_by_the_pass():
    prog = load("acc_row_window.py")
    with pytest.raises(ValueError) as exc:
        compile(prog)
    assert "slice" in str(exc.value).lower()


@pytest.mark.parametrize("skip", [(), SKIP])
def test_acc_column_window_idiom_is_correct(skip):
    prog = load("acc_column_window.py")
    rep = run_and_compare(prog, random_inputs(prog, seed=9), skip_passes=skip,
                          codegen="faithful" if skip else "strict")
    assert rep.fault is None and rep.matches, rep.summary()


# --- batch-page Mat slices -----------------------------------------------------------------------

BATCH_PAGES = ["batch_pages_1.py", "batch_pages_4.py"]


def _page_slice_extracts(program):
    """(extract, slice) pairs: tile.extract calls whose source is a Mat tile.slice (a batch page)."""
    from tilefold.analysis.tile_layout import all_stmts as _all_stmts
    from tilefold.ir.expr import Call
    from tilefold.ir.stmt import AssignStmt
    from tilefold.ir.types import MemorySpace

    pairs = []
    for fn in program.functions:
        defs = {s.var: s.value for s in _all_stmts(fn.body) if isinstance(s, AssignStmt)}
        for s in _all_stmts(fn.body):
            if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op_name == "tile.extract":
                src = defs.get(s.value.args[0])
                if isinstance(src, Call) and src.op_name == "tile.slice" and \
                        s.value.args[0].type.memory_space is MemorySpace.Mat:
                    pairs.append((s.value, src))
    return pairs


@pytest.mark.parametrize("name", BATCH_PAGES)
def test_auto_tile_matmul_l0_extracts_from_the_page_slices(name):
    from tilefold.compiler import run_pipeline

    ir, passes = run_pipeline(load(name), "Ascend910C", skip_passes=SKIP)
    assert "AutoTileMatmulL0" in passes and "CanonicalizeTileSlice" not in passes
    assert _page_slice_extracts(ir), "the pages must reach AutoTileMatmulL0's extracts as Mat slices"
    with_pass, _ = run_pipeline(load(name), "Ascend910C")
    assert not _page_slice_extracts(with_pass)


@pytest.mark.parametrize("name", BATCH_PAGES)
def test_batch_page_slices_trap_on_910c_without_the_pass(name):
    prog = load(name)
    rep = unsafe(prog, random_inputs(prog, seed=10), target="Ascend910C")
    assert isinstance(rep.fault, UnsupportedDataPath), rep.summary()
    assert "Mat -> Mat" in str(rep.fault) and rep.fault.instruction.startswith("textract")
    assert "materialize subview" in rep.fault.instruction


@pytest.mark.parametrize("name", BATCH_PAGES)
def test_batch_page_slices_materialize_in_place_on_910b_without_the_pass(name):
    """910B has the L1 -> L1 path and the page windows are whole rows (identity copies): correct, but every
    extract pays a Mat -> Mat copy of its page first."""
    prog = load(name)
    inputs = random_inputs(prog, seed=10)
    rep = unsafe(prog, inputs)
    assert rep.fault is None and rep.matches, rep.summary()
    assert rep.cycles > safe(prog, inputs).cycles


@pytest.mark.parametrize("name", BATCH_PAGES)
@pytest.mark.parametrize("target", ["Ascend910B", "Ascend910C"])
def test_batch_page_slices_correct_with_the_pass(name, target):
    prog = load(name)
    safe(prog, random_inputs(prog, seed=10), target=target)


# --- the strict guard ----------------------------------------------------------------------------


@pytest.mark.parametrize("name, why", [
    ("issue_1640_dynamic_row.py", "dynamic"),
    ("issue_2010_column_window.py", "not contiguous"),
    ("mat_slice_l1_to_l1.py", "Mat -> Mat"),
])
def test_strict_codegen_refuses_the_hazardous_materialization(name, why):
    with pytest.raises(InternalCheckError) as exc:
        compile(load(name), skip_passes=SKIP)
    assert "internal error" in str(exc.value) and why in str(exc.value)


def test_evidence_table_for_the_demo():
    from tilefold.testing import evidence_table, format_evidence_table

    rows = {(r["kernel"], r["pass"]): r for r in evidence_table(str(EXAMPLES))}
    for kernel in ("issue_1640_dynamic_row", "issue_2010_column_window", "acc_row_window"):
        assert rows[(kernel, "without")]["result"] == "wrong"
    for kernel in ("issue_1789_unaligned_column", "mat_slice_l1_to_l1", "batch_pages_1", "batch_pages_4"):
        assert rows[(kernel, "without")]["result"] == "trap"
    assert rows[("acc_row_window", "with")]["result"] == "rejected"
    for (kernel, label), row in rows.items():
        if label == "with" and kernel != "acc_row_window":
            assert row["result"] == "correct", row
    assert "issue_2010_column_window" in format_evidence_table(list(rows.values()))
