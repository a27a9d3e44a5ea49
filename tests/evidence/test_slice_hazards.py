"""Evidence that every hazard CanonicalizeTileSlice guards against is real on the simulator.

Each kernel in ``examples/evidence`` runs twice: without the pass (``skip_passes=("CanonicalizeTileSlice",)``,
``codegen="faithful"``: what the unguarded compiler emits) it computes a wrong result or traps; with the
default pipeline it equals the golden result. Strict codegen refuses the hazardous materializations.
"""

from pathlib import Path

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.backend import InternalCheckError, compile
from tilefold.backend.pto import For, If, TExtract, While
from tilefold.sim import DeviceHang, UnsupportedDataPath
from tilefold.testing import random_inputs, run_and_compare

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


def test_2010_column_window_destroys_source_except_row_0_without_the_pass():
    prog = load("issue_2010_column_window.py")
    rep = unsafe(prog, random_inputs(prog, seed=4))
    assert rep.fault is None and not rep.matches
    got, want = rep.outputs["out"], rep.golden_outputs["out"]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)  # row 0 survives the in-place repack
    # the repack overwrote the source rows that follow it (with the sub-block split each sub-block
    # repacks its own 8-row half: rows 1..4 of each half are overwritten, the rows past the dense
    # buffer's end are not)
    half = got.shape[0] // 2
    for base in (0, half):
        np.testing.assert_allclose(got[base], want[base], rtol=1e-6)
        for r in range(base + 1, base + 5):
            assert not np.allclose(got[r], want[r]), r


def test_2010_correct_with_the_pass():
    prog = load("issue_2010_column_window.py")
    safe(prog, random_inputs(prog, seed=4))


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


@pytest.mark.parametrize("name", ["batch_pages_1.py", "batch_pages_4.py"])
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
    for kernel in ("issue_1789_unaligned_column", "mat_slice_l1_to_l1"):
        assert rows[(kernel, "without")]["result"] == "trap"
    assert rows[("acc_row_window", "with")]["result"] == "rejected"
    for (kernel, label), row in rows.items():
        if label == "with" and kernel != "acc_row_window":
            assert row["result"] == "correct", row
    assert "issue_2010_column_window" in format_evidence_table(list(rows.values()))
