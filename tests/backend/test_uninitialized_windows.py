"""Window writes onto a ``tile.create`` target (``tile.assemble``, ``tile.write``): the analysis tracks which elements
were written. Assembles that cover the target make it initialised (the program runs, checked against numpy); a read
of a target with any element unwritten is refused, naming how many; offsets it cannot evaluate prove nothing."""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.analysis.uninitialized_reads import find_uninitialized_reads
from tilefold.compiler import compile
from tilefold.errors import TilefoldError
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(2)
HEAD = '''import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        d = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
'''
TAIL = '''        out = pl.tile.store(d, [0, 0], out)
        return out
'''


def _src(body: str) -> str:
    return HEAD + body + TAIL


def _runs(body: str, n: int = 0) -> np.ndarray:
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    report = run_and_compare(pl.parse(_src(body)), {"x": x, "n": n, "out": np.full((32, 64), 7.0, np.float32)})
    assert report.fault is None and report.matches, report.summary()
    return x, report.outputs["out"]


def _refused(body: str) -> TilefoldError:
    src = _src(body)
    with pytest.raises(TilefoldError) as info:
        compile(pl.parse(src))
    err = info.value
    assert err.span.line == src.splitlines().index("        out = pl.tile.store(d, [0, 0], out)") + 1
    assert "tile.store reads tile 'd'" in err.message and err.hint
    return err


def test_two_assembles_that_cover_the_target_initialise_it():
    x, got = _runs('''        a = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        b = pl.tile.load(x, [48, 0], [16, 64], target_memory=pl.Mem.Vec)
        d = pl.tile.assemble(d, pl.tile.exp(b), [0, 0])
        d = pl.tile.assemble(d, a, [16, 0])
''')
    np.testing.assert_allclose(got, np.concatenate([np.exp(x[48:64]), x[0:16]]), rtol=1e-5)


def test_assembles_in_a_loop_at_loop_variable_offsets_cover_the_target():
    x, got = _runs('''        for i in pl.range(4):
            a = pl.tile.load(x, [i * 16, 0], [16, 16], target_memory=pl.Mem.Vec)
            b = pl.tile.load(x, [i * 16, 16], [16, 16], target_memory=pl.Mem.Vec)
            c = i * 16
            d = pl.tile.assemble(d, a, [0, c])
            d = pl.tile.assemble(d, b, [16, c])
''')
    expected = np.zeros((32, 64), np.float32)
    for i in range(4):
        expected[0:16, i * 16:i * 16 + 16] = x[i * 16:i * 16 + 16, 0:16]
        expected[16:32, i * 16:i * 16 + 16] = x[i * 16:i * 16 + 16, 16:32]
    np.testing.assert_allclose(got, expected)


def test_a_store_of_a_partly_assembled_target_is_refused_with_the_count():
    err = _refused('''        a = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        d = pl.tile.assemble(d, a, [0, 0])
''')
    assert "1024 of its 2048 elements nothing wrote, e.g. element [16, 0]" in err.message


def test_a_loop_that_misses_one_window_is_refused():
    err = _refused('''        for i in pl.range(3):
            a = pl.tile.load(x, [i * 16, 0], [32, 16], target_memory=pl.Mem.Vec)
            d = pl.tile.assemble(d, a, [0, i * 16])
''')
    assert "512 of its 2048 elements nothing wrote, e.g. element [0, 48]" in err.message


def test_offsets_that_cannot_be_evaluated_prove_nothing_written():
    err = _refused('''        a = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        d = pl.tile.assemble(d, a, [n, 0])
''')
    assert "2048 of its 2048 elements" in err.message and "could not be evaluated" in err.message


def test_the_assemble_itself_does_not_read_the_created_target():
    src = _src('''        a = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        d = pl.tile.assemble(d, a, [0, 0])
        d = pl.tile.assemble(d, a, [16, 0])
''')
    assert find_uninitialized_reads(pl.parse(src).functions[0]) == []


def test_a_read_of_the_written_window_through_a_slice_is_accepted_and_of_the_rest_refused():
    body = '''        a = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        d = pl.tile.assemble(d, a, [16, 0])
        s = pl.tile.slice(d, [16, 64], [{row}, 0])
        e = pl.tile.exp(s)
        out = pl.tile.store(e, [0, 0], out)
        return out
'''
    ok = pl.parse(HEAD + body.format(row=16))
    assert find_uninitialized_reads(ok.functions[0]) == []
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    report = run_and_compare(ok, {"x": x, "n": 0, "out": np.full((32, 64), 7.0, np.float32)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"][:16], np.exp(x[:16]), rtol=1e-5)
    np.testing.assert_allclose(report.outputs["out"][16:], 7.0)
    found = find_uninitialized_reads(pl.parse(HEAD + body.format(row=8)).functions[0])
    assert [f.reader for f in found] == ["tile.exp"] and "512 of its 1024 elements" in found[0].partly


ELEMENTS = '''import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        t = pl.tile.create([1, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for j in pl.range({n}):
            t = pl.tile.write(t, [0, j], j * 3)
        out = pl.tile.store(t, [0, 0], out)
        return out
'''


def test_element_writes_into_a_created_tile_count_element_by_element():
    report = run_and_compare(pl.parse(ELEMENTS.format(n=8)), {"out": np.zeros((1, 8), np.float32)})
    assert report.matches, report.summary()
    np.testing.assert_array_equal(report.outputs["out"], np.arange(8, dtype=np.float32)[None, :] * 3)
    with pytest.raises(TilefoldError, match=r"1 of its 8 elements nothing wrote, e.g. element \[0, 7\]"):
        compile(pl.parse(ELEMENTS.format(n=7)))


@pl.jit
def _jit_swap_halves(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        d = pl.create_tile([32, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        a = pl.load(x, [0, 0], [16, 64])
        b = pl.load(x, [16, 0], [16, 64])
        d = pl.tile.assemble(d, a, [16, 0])
        d = pl.tile.assemble(d, b, [0, 0])
        pl.store(d, [0, 0], out)
    return out


def test_jit_form_assembles_onto_a_created_tile():
    x = RNG.standard_normal((32, 64)).astype(np.float32)
    out = np.zeros((32, 64), np.float32)
    _jit_swap_halves(x, out)
    np.testing.assert_array_equal(out, np.concatenate([x[16:], x[:16]]))
