"""run_and_compare: missing outputs never count as a match; a golden-side user error does not hide the trap
the device raises on the same input."""

import numpy as np
import pytest

import tilefold.golden
import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.sim import OutOfBounds
from tilefold.testing import run_and_compare

_DYN_STORE = '''
import tilefold.language as pl


@pl.program
class DynStore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], r: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.store(t, [r, 0], out)
        return out
'''


def _inputs(r):
    return {"x": np.arange(16 * 64, dtype=np.float32).reshape(16, 64), "r": r}


@pytest.mark.parametrize("options", [{}, {"enable_auto_bind_sub_block": False}])
def test_dynamic_out_of_bounds_store_reports_the_device_trap(options):
    rep = run_and_compare(pl.parse(_DYN_STORE), _inputs(8), options=options)
    assert isinstance(rep.fault, OutOfBounds) and rep.result == "trap" and not rep.matches
    assert rep.fault.instruction.startswith("tstore") and rep.fault.address == 16 * 64 * 4
    assert "golden" in rep.details and "exceeds" in rep.details["golden"]


def test_in_bounds_dynamic_store_matches():
    rep = run_and_compare(pl.parse(_DYN_STORE), _inputs(0))
    assert rep.matches and rep.fault is None and "golden" not in rep.details


def test_golden_error_without_a_device_trap_is_raised(monkeypatch):
    def broken(*args, **kwargs):
        raise TilefoldError("golden refused the program")

    monkeypatch.setattr(tilefold.golden, "run_program", broken)
    with pytest.raises(TilefoldError, match="golden refused"):
        run_and_compare(pl.parse(_DYN_STORE), _inputs(0))


def test_golden_output_missing_on_the_device_is_a_mismatch(monkeypatch):
    real = tilefold.golden.run_program

    def with_extra(*args, **kwargs):
        outputs = real(*args, **kwargs)
        outputs["return"] = np.float32(3.0)
        return outputs

    monkeypatch.setattr(tilefold.golden, "run_program", with_extra)
    rep = run_and_compare(pl.parse(_DYN_STORE), _inputs(0))
    assert not rep.matches and rep.fault is None and rep.result == "wrong"
    assert rep.mismatch_output == "return" and "missing" in rep.details["return"]
    assert rep.details["out"]  # the outputs the device did produce are still compared
    assert "missing" in rep.summary()
