"""PyPTO's selective tensor dumps on the simulator: ``pl.dump_tag(t)`` / ``dumps=[...]`` with
``RunConfig(enable_dump_args=1|2)`` (precision/00-workflow, tutorials/05, dev/01-statements). Each dumped tensor
of each task is written before and after the task (runtime/dfx.py); the numpy references are written here."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.runtime import RunConfig
from tilefold.runtime.dfx import load_arg_dumps

RNG = np.random.default_rng(1919)
A = RNG.standard_normal((16, 64)).astype(np.float32)


@pl.inline
def mark(x):
    pl.dump_tag(x)
    return x


@pl.jit
def staged(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    t = pl.create_tensor([16, 64], dtype=pl.FP32)
    pl.dump_tag(t)
    with pl.at(level=pl.Level.CORE_GROUP):
        t[:] = pl.exp(a)
    with pl.at(level=pl.Level.CORE_GROUP, dumps=[out]):
        out[:] = pl.add(t, 1.0)
    return out


def _records(tmp_path, level, kernel=staged):
    out = np.zeros_like(A)
    kernel(A, out, config=RunConfig(work_dir=str(tmp_path), enable_dump_args=level))
    np.testing.assert_allclose(out, np.exp(A) + 1.0, rtol=1e-5)  # dumping changes no value
    return load_arg_dumps(tmp_path / "dfx_outputs" / "args_dump")


def test_level_1_dumps_the_tagged_tensors_around_each_consuming_task(tmp_path):
    recs = _records(tmp_path, 1)
    assert [(r["task"], r["tensor"]) for r in recs] == [(0, "t"), (1, "out"), (1, "t")]
    t0, out1, t1 = recs
    np.testing.assert_array_equal(t0["before"], np.zeros_like(A))  # a fresh pl.create_tensor
    np.testing.assert_allclose(t0["after"], np.exp(A), rtol=1e-5)
    np.testing.assert_array_equal(t1["before"], t0["after"])  # the consumer sees what the producer wrote
    np.testing.assert_array_equal(t1["after"], t1["before"])  # task 1 only reads t
    np.testing.assert_allclose(out1["after"], np.exp(A) + 1.0, rtol=1e-5)
    index = json.loads((tmp_path / "dfx_outputs" / "args_dump" / "index.json").read_text())
    first = index["records"][0]
    assert index["level"] == 1 and first["before"] == f"task000_{first['kernel']}/t.before.npy"
    assert index["records"][0]["dtype"] == "FP32" and index["records"][0]["shape"] == [16, 64]


def test_level_2_dumps_every_task_argument_and_the_entry_arguments(tmp_path):
    recs = _records(tmp_path, 2)
    assert {(r["task"], r["tensor"]) for r in recs} == {(0, "a"), (0, "t"), (1, "t"), (1, "out")}
    a0 = next(r for r in recs if r["tensor"] == "a")
    np.testing.assert_array_equal(a0["before"], A)
    dump = tmp_path / "dfx_outputs" / "args_dump"
    np.testing.assert_array_equal(np.load(dump / "a.in.npy"), A)


def test_without_the_flag_tags_write_nothing(tmp_path):
    out = np.zeros_like(A)
    staged(A, out, config=RunConfig(work_dir=str(tmp_path)))
    assert not (tmp_path / "dfx_outputs").exists()


@pl.jit
def via_helper(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    a2 = mark(a)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.exp(a2), 1.0)
    return out


def test_a_tag_in_an_inline_helper_spliced_into_orchestration(tmp_path):
    recs = _records(tmp_path, 1, via_helper)
    assert [(r["task"], r["tensor"]) for r in recs] == [(0, "a")]
    np.testing.assert_array_equal(recs[0]["before"], A)


PROGRAM = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
               ) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        y = pl.store(pl.add(t, t), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]
             ) -> pl.Tensor[[16, 64], pl.FP32]:
        mid = pl.create_tensor([16, 64], dtype=pl.FP32)
        TAG
        mid, t1 = pl.submit(self.double, a, mid)
        out, t2 = pl.submit(self.double, mid, out, dumps=[out])
        return out
'''


def test_program_form_tag_and_submit_dumps(tmp_path):
    from tilefold.runtime.dfx import write_arg_dumps
    from tilefold.testing import run_and_compare

    program = pl.parse(PROGRAM.replace("TAG", "pl.dump_tag(mid)"))
    report = run_and_compare(program, {"a": A, "out": np.zeros_like(A)}, dump_args=1)
    assert report.matches, report.summary()
    recs = load_arg_dumps(write_arg_dumps(report.sim, tmp_path, 1))
    assert [(r["task"], r["tensor"], r["param"]) for r in recs] == [(0, "mid", "y"), (1, "mid", "x"),
                                                                    (1, "out", "y")]
    np.testing.assert_array_equal(recs[0]["after"], 2 * A)
    np.testing.assert_array_equal(recs[2]["after"], 4 * A)
    assert "dump[@mid]" in report.compiled.pto.text()


def test_the_printed_program_keeps_its_tags():
    program = pl.parse(PROGRAM.replace("TAG", "pl.dump_tag(mid)"))
    text = program.as_python()
    assert "pl.tensor.dump_tag(mid)" in text and "next_launch=True" in text
    from tilefold import ir

    ir.assert_structural_equal(pl.parse(text), program)


def test_tilefold_run_writes_the_dumps(tmp_path, capsys):
    from tilefold.cli import main

    src = tmp_path / "p.py"
    src.write_text(PROGRAM.replace("TAG", "pl.dump_tag(mid)"))
    assert main(["run", str(src), "--dump-args", "1", "--dump-dir", str(tmp_path / "d")]) == 0
    assert "tensor dumps written" in capsys.readouterr().out
    assert [r["tensor"] for r in load_arg_dumps(tmp_path / "d")] == ["mid", "mid", "out"]


@pytest.mark.parametrize(("tag", "needle"), [
    ("pl.dump_tag(a[0:8, :])", "bare tensor variable name"),
    ("pl.dump_tag(nothing)", "'nothing' is undefined"),
    ("pl.dump_tag(mid, out)", "exactly one tensor"),
    ("x = pl.dump_tag(mid)", "is a statement"),
])
def test_bad_tags_are_located_errors(tag, needle):
    with pytest.raises(TilefoldError) as info:
        pl.parse(PROGRAM.replace("TAG", tag))
    assert needle in info.value.message and info.value.span is not None and info.value.span.line == 17


def test_a_tag_in_kernel_code_is_a_located_error():
    text = PROGRAM.replace("TAG", "pass").replace("        t = pl.load(x, [0, 0], [16, 64])\n",
                                                  "        t = pl.load(x, [0, 0], [16, 64])\n        pl.dump_tag(x)\n")
    with pytest.raises(TilefoldError, match="kernel code") as info:
        pl.parse(text)
    assert info.value.span.line == 10 and "Orchestration" in info.value.hint


def test_a_tag_inside_a_pl_at_scope_is_a_located_error():
    src = '''
import tilefold.language as pl

@pl.jit
def k(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.dump_tag(a)
        out[:] = pl.exp(a)
    return out
'''
    with pytest.raises(TilefoldError, match="kernel code") as info:
        pl.parse(src)
    assert info.value.span.line == 7


def test_dumps_naming_a_tensor_the_scope_does_not_touch_is_refused():
    src = '''
import tilefold.language as pl

@pl.jit
def k(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, dumps=[b]):
        out[:] = pl.exp(a)
    return out
'''
    with pytest.raises(TilefoldError, match="does not touch"):
        pl.parse(src)
