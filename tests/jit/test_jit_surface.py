"""PyPTO's pl.at keyword options and companion scopes in the jit form: name_hint, optimizations=[pl.split(...),
pl.cross_core_slot(...)], `as tid` / deps=, no_dep_args=, pl.spmd, pl.scope / pl.manual_scope, task-id arrays,
@pl.jit(auto_scope=), create_tensor(manual_dep=), positional dtype operands, slot placement, get_byte."""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError, ParseError, TilefoldError
from tilefold.passes.remarks import collect_remarks

R, C = 64, 128
HEAD = "import tilefold.language as pl\n\n"
SIG = ("@pl.jit\ndef k(a: pl.Tensor[[64, 128], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32],\n"
       "      out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):\n")
RNG = np.random.default_rng(7)
X = RNG.standard_normal((R, C)).astype(np.float32)
Y = RNG.standard_normal((R, C)).astype(np.float32)


def fails(body: str, exc: type[TilefoldError] = ParseError) -> TilefoldError:
    """The jit kernel fails on the line marked `# <-`, located, with a hint."""
    src = HEAD + SIG + body
    line = next(i for i, ln in enumerate(src.splitlines(), 1) if "# <-" in ln)
    with pytest.raises(exc) as info:
        pl.parse(src, "kern.py")
    err = info.value
    assert err.span is not None and err.span.filename == "kern.py" and err.span.line == line, str(err)
    assert err.hint
    return err


# ---------------------------------------------------------------- kernels

@pl.jit
def named(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="double_it"):
        out[:] = pl.mul(a, 2.0)
    return out


@pl.jit
def named_in_loop(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    for i in pl.range(2):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="band"):
            t = pl.load(a, [i * 32, 0], [32, 128])
            pl.store(pl.add(t, 1.0), [i * 32, 0], out)
    return out


@pl.jit
def split_rows(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
        out[:] = pl.add(pl.mul(a, 3.0), a)
    return out


@pl.jit
def split_cols(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k",
               optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT), pl.cross_core_slot(slot_num=4)]):
        out[:] = pl.add(pl.mul(a, 3.0), a)
    return out


@pl.jit
def split_none(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.split(pl.SplitMode.NONE)]):
        out[:] = pl.add(pl.mul(a, 3.0), a)
    return out


@pl.jit
def no_split_request(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
        out[:] = pl.add(pl.mul(a, 3.0), a)
    return out


@pl.jit
def cols_unsafe(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 1], pl.FP32]]):
    # a row sum: its columns are a reduction axis, so the requested column split is refused
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
        out[:] = pl.row_sum(a)
    return out


@pl.jit
def chained(a: pl.Tensor[[64, 128], pl.FP32], scratch: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
            out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage1") as first:
        scratch[:] = pl.add(a, a)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage2", deps=[first], no_dep_args=[out]):
        out[:] = pl.add(scratch, scratch)
    return scratch, out


@pl.jit
def task_array(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    scratch = pl.create_tensor([64, 128], pl.FP32, manual_dep=True)
    writers = pl.array.create(2, pl.TASK_ID)
    with pl.manual_scope():
        for i in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP) as tid:
                t = pl.load(a, [i * 32, 0], [32, 128])
                pl.store(pl.mul(t, 2.0), [i * 32, 0], scratch)
            writers[i] = tid
    with pl.at(level=pl.Level.CORE_GROUP, deps=[writers]):
        for i in pl.range(2):
            t = pl.load(scratch, [i * 32, 0], [32, 128])
            pl.store(pl.add(t, 1.0), [i * 32, 0], out)
    return out


@pl.jit(auto_scope=False)
def scoped(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.scope():
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.exp(a)
    return out


@pl.jit
def spmd_loop(a: pl.Tensor[[64, 128], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32],
              out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    for i in pl.spmd(4):
        off = i * 16
        pl.store(pl.add(pl.load(a, [off, 0], [16, 128]), pl.load(b, [off, 0], [16, 128])), [off, 0], out)
    return out


@pl.jit
def spmd_same_rows(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    for _i in pl.spmd(2):  # every block writes rows 0..15: the blocks race on GM
        pl.store(pl.add(pl.load(a, [0, 0], [16, 128]), 1.0), [0, 0], out)
    return out


@pl.jit
def casts(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(pl.mul(a, 2.0), pl.FP16)
    return out


@pl.jit
def tile_casts(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [64, 128])
        pl.store(pl.cast(t, pl.FP16), [0, 0], out)
    return out


@pl.jit
def slotted(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):
            t: pl.Tile[[32, 128], pl.FP32, pl.MemRef("ub", slots=2)[i % 2], pl.Mem.Vec] = pl.load(
                a, [i * 32, 0], [32, 128], target_memory=pl.Mem.Vec)
            pl.store(pl.exp(t), [i * 32, 0], out)
    return out


@pl.jit
def reuse_temp(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [64, 128])
        pl.store(pl.mul(t, 2.0), [0, 0], out)
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):  # a fresh `t` per iteration, not the earlier scope's tile carried in
            t = pl.load(out, [i * 32, 0], [32, 128])
            pl.store(pl.add(t, 1.0), [i * 32, 0], out)
    return out


# ---------------------------------------------------------------- name_hint

def test_name_hint_names_the_outlined_function():
    prog = named.lower(X, np.zeros_like(X))
    assert "double_it" in {f.name for f in prog.functions}
    assert "def double_it(" in prog.as_python()
    out = np.zeros_like(X)
    named(X, out)
    np.testing.assert_allclose(out, X * 2.0, rtol=1e-6)


def test_name_hint_repeated_by_an_unrolled_loop_is_made_unique():
    prog = named_in_loop.lower(X, np.zeros_like(X))
    names = [f.name for f in prog.functions if f.name.startswith("band")]
    assert names == ["band", "band_1"]
    out = np.zeros_like(X)
    named_in_loop(X, out)
    np.testing.assert_allclose(out, X + 1.0, rtol=1e-6)


@pytest.mark.parametrize("value", ['"2fast"', "name", '""', '"class"'])
def test_name_hint_must_be_an_identifier_string(value):
    err = fails(f"    with pl.at(level=pl.Level.CORE_GROUP, name_hint={value}):  # <-\n"
                "        out[:] = pl.add(a, b)\n    return out\n")
    assert "name_hint= must be a string naming a function" in err.message


# ---------------------------------------------------------------- pl.split -> TileAndBindSubBlock

def _lowered(kernel, *args):
    with collect_remarks() as remarks:
        prog = kernel.lower(*args)
    return prog.function("k"), remarks.of(pass_name="TileAndBindSubBlock", function="k")


def test_split_request_picks_the_axis():
    out = np.zeros_like(X)
    default, _ = _lowered(no_split_request, X, out)
    rows, _ = _lowered(split_rows, X, out)
    cols, _ = _lowered(split_cols, X, out)
    assert default.attr("sub_block_axis") == 0  # the pass's own choice: the outer axis
    assert rows.attr("sub_block_axis") == 0 and rows.attr("sub_block_split") == "UP_DOWN"
    assert cols.attr("sub_block_axis") == 1 and cols.attr("sub_block_split") == "LEFT_RIGHT"
    assert cols.attr("cross_core_slot") == 4
    text = split_cols.lower(X, out).as_python()
    assert "get_subblock_idx" in text and "[64, 64]" in text  # column halves of the [64, 128] tiles


@pytest.mark.parametrize("kernel", [split_rows, split_cols, split_none])
def test_split_request_keeps_results_golden_equal_simulator(kernel):
    from tilefold.golden import run_program
    from tilefold.runtime.jit_compile import outlined

    out = np.zeros_like(X)
    kernel(X, out)
    np.testing.assert_allclose(out, X * 4.0, rtol=1e-6)
    golden = run_program(outlined(kernel.parse(X, np.zeros_like(X))), {"a": X, "out": np.zeros_like(X)})
    np.testing.assert_allclose(out, golden["out"], rtol=1e-6)


def test_split_none_splits_nothing_and_guards_stores():
    fn, remarks = _lowered(split_none, X, np.zeros_like(X))
    assert fn.attr("sub_block_axis") is None
    assert [r.kind for r in remarks] == ["split-request-none"]
    assert "limit_sub_block_id0" in str(fn.body)


def test_unsafe_split_request_falls_back_with_a_remark():
    out = np.zeros((R, 1), np.float32)
    fn, remarks = _lowered(cols_unsafe, X, out)
    assert fn.attr("sub_block_axis") == 0  # never the requested (reduction) axis
    fallback = [r for r in remarks if r.kind == "split-request-fallback"]
    assert fallback and "requested split axis 1" in fallback[0].message
    cols_unsafe(X, out)
    np.testing.assert_allclose(out[:, 0], X.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_split_request_on_a_mixed_kernel_is_reported_as_ignored():
    src = (HEAD + "@pl.jit\ndef m(a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],\n"
           "      out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP, name_hint='mm', optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):\n"
           "        out[:] = pl.matmul(a, b, out_dtype=pl.FP32)\n    return out\n")
    from tilefold.compiler import run_pipeline

    with collect_remarks() as remarks:
        run_pipeline(pl.parse(src, "mixed.py"))
    assert [r.kind for r in remarks.of(pass_name="TileAndBindSubBlock", function="mm")] == ["split-request-ignored"]


@pytest.mark.parametrize("opts, message", [
    ("[pl.split(pl.SplitMode.DIAGONAL)]", "unknown split mode"),
    ("[pl.split(pl.SplitMode.UP_DOWN), pl.split(pl.SplitMode.NONE)]", "pl.split given twice"),
    ("[pl.cross_core_slot(slot_num=0)]", "slot_num must be a positive integer constant"),
    ("[pl.tile_hint(4)]", "unknown pl.at optimization"),
    ("OPTS", "optimizations= must be a list written inline"),
])
def test_bad_optimizations_are_located_errors(opts, message):
    err = fails(f"    with pl.at(level=pl.Level.CORE_GROUP, optimizations={opts}):  # <-\n"
                "        out[:] = pl.add(a, b)\n    return out\n")
    assert message in err.message


# ---------------------------------------------------------------- task ids, deps, opt-outs

def test_deps_and_no_dep_args_are_validated_and_run_in_program_order():
    scratch, out = np.zeros_like(X), np.zeros_like(X)
    chained(X, scratch, out)
    np.testing.assert_allclose(out, 4 * X, rtol=1e-6)
    np.testing.assert_allclose(scratch, 2 * X, rtol=1e-6)


def test_task_id_array_manual_scope_and_manual_dep():
    out = np.zeros_like(X)
    task_array(X, out)
    np.testing.assert_allclose(out, 2 * X + 1, rtol=1e-6)


def test_dep_naming_a_value_is_an_error():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP, deps=[a]):  # <-\n"
                "        out[:] = pl.add(a, b)\n    return out\n")
    assert "deps= entry 'a' is not a task id" in err.message
    assert "as tid" in err.hint


def test_dep_naming_a_later_task_is_an_error():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP, deps=[later]):  # <-\n"
                "        out[:] = pl.add(a, b)\n"
                "    with pl.at(level=pl.Level.CORE_GROUP) as later:\n"
                "        out[:] = pl.add(out, b)\n    return out\n")
    assert "'later' is not a task id" in err.message


def test_no_dep_args_must_name_a_tensor_the_scope_touches():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[b]):  # <-\n"
                "        out[:] = pl.exp(a)\n    return out\n")
    assert "no_dep_args= names 'b', which this scope does not touch" in err.message
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[zz]):  # <-\n"
                "        out[:] = pl.exp(a)\n    return out\n")
    assert "'zz' is not a tensor" in err.message


def test_task_id_name_taken_by_a_value_is_an_error():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP) as a:  # <-\n"
                "        out[:] = pl.exp(b)\n    return out\n")
    assert "'a' is already a value" in err.message


def test_predicate_on_pl_at_is_refused():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP, predicate=True):  # <-\n"
                "        out[:] = pl.exp(b)\n    return out\n")
    assert "pl.at has no predicate= option" in err.message


def test_unknown_pl_at_option_lists_the_known_ones():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP, colour=1):  # <-\n"
                "        out[:] = pl.exp(b)\n    return out\n")
    assert "unknown pl.at option 'colour'" in err.message and "name_hint=" in err.hint


def test_manual_scope_inside_a_scope_is_an_error():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP):\n"
                "        with pl.manual_scope():  # <-\n"
                "            out[:] = pl.exp(b)\n    return out\n")
    assert "pl.manual_scope() inside a pl.at scope" in err.message


def test_manual_dep_must_be_a_bool():
    err = fails("    s = pl.create_tensor([64, 128], pl.FP32, manual_dep=1)  # <-\n"
                "    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.exp(b)\n    return out\n")
    assert "manual_dep= must be True or False" in err.message


# ---------------------------------------------------------------- scopes, auto_scope, spmd

def test_auto_scope_false_and_pl_scope():
    assert scoped.options == {"auto_scope": False}
    out = np.zeros_like(X)
    scoped(X, out)
    np.testing.assert_allclose(out, np.exp(X), rtol=1e-5)


def test_bad_jit_options():
    with pytest.raises(ParseError, match="auto_scope=...\\) must be True or False"):
        pl.jit(auto_scope="no")
    with pytest.raises(ParseError, match="unknown @pl.jit option"):
        pl.jit(fast=True)


def test_spmd_loop_runs_one_kernel_on_n_blocks():
    prog = spmd_loop.lower(X, Y, np.zeros_like(X))
    kernels = [f for f in prog.functions if f.attr("block_dim") is not None]
    assert len(kernels) == 1 and kernels[0].attr("block_dim") == 4
    assert "get_block_idx" in prog.as_python()
    out = np.zeros_like(X)
    spmd_loop(X, Y, out)
    np.testing.assert_allclose(out, X + Y, rtol=1e-6)


def test_spmd_blocks_writing_the_same_rows_race():
    from tilefold.sim.faults import RaceDetected

    with pytest.raises(RaceDetected):
        spmd_same_rows(X, np.zeros_like(X))


def test_spmd_errors():
    err = fails("    with pl.spmd(2):  # <-\n        out[:] = pl.exp(b)\n    return out\n")
    assert "neither reads the block index" in err.message
    with pytest.raises(NotSupportedError, match="positive constant block count"):
        pl.parse(HEAD + SIG + "    for i in pl.spmd(0):\n        out[:] = pl.exp(b)\n    return out\n")


def test_scope_local_tile_name_can_be_reused_by_a_later_scope():
    out = np.zeros_like(X)
    reuse_temp(X, out)
    np.testing.assert_allclose(out, 2 * X + 1, rtol=1e-6)


def test_scope_local_tile_used_after_the_scope_names_the_scope():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [64, 128])\n"
                "        pl.store(t, [0, 0], out)\n"
                "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                "        pl.store(pl.exp(t), [0, 0], out)  # <-\n    return out\n")
    assert "earlier pl.at scope" in err.hint


# ---------------------------------------------------------------- positional options, slots, get_byte

@pytest.mark.parametrize("kernel", [casts, tile_casts])
def test_positional_dtype_of_cast(kernel):
    out = np.zeros((R, C), np.float16)
    kernel(X, out)
    want = X * 2.0 if kernel is casts else X
    np.testing.assert_allclose(out.astype(np.float32), want.astype(np.float16).astype(np.float32), rtol=1e-3)


def test_positional_dtype_of_program_form_ops():
    src = (HEAD + "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
           "    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]):\n"
           "        t = pl.load(a, [0, 0], [16, 64])\n        c = pl.cast(t, pl.FP16)\n"
           "        z = pl.tile.full([16, 64], pl.FP16, 0.0)\n"
           "        out = pl.store(pl.add(c, z), [0, 0], out)\n        return out\n")
    prog = pl.parse(src)
    assert "pl.FP16" in prog.as_python()


def test_slot_placement_is_validated_and_planned_by_tilefold():
    out = np.zeros_like(X)
    slotted(X, out)
    np.testing.assert_allclose(out, np.exp(X), rtol=1e-5)
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP):\n"
                "        t: pl.Tile[[64, 128], pl.FP32, pl.MemRef('ub', slots=0)[0], pl.Mem.Vec] = pl.load(  # <-\n"
                "            a, [0, 0], [64, 128])\n        pl.store(t, [0, 0], out)\n    return out\n")
    assert "slots= must be a positive integer constant" in err.message


def test_get_byte():
    assert pl.FP32.get_byte() == 4 and pl.BF16.get_byte() == 2 and pl.INT8.get_byte() == 1
    assert pl.INT4.get_byte() == 1 and 256 * pl.FP32.get_byte() == 1024


def test_markers_outside_a_kernel():
    assert pl.split(pl.SplitMode.UP_DOWN).item is pl.SplitMode.UP_DOWN
    with pytest.raises(NotSupportedError, match="pl.spmd"):
        pl.spmd(4)
    with pytest.raises(NotSupportedError, match="tilefold.language.distributed"):
        import tilefold.language.distributed  # noqa: F401


@pl.jit.incore
def scale_by(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
             factor: pl.Scalar[pl.FP32]):
    out = pl.store(pl.mul(pl.load(x, [0, 0], [64, 128]), factor), [0, 0], out)
    return out


@pl.jit
def literal_scalar_arg(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    out = scale_by(x, out, 2.5)
    return out


def test_float_literal_passed_to_an_incore_kernel():
    out = np.zeros_like(X)
    literal_scalar_arg(X, out)
    np.testing.assert_allclose(out, X * 2.5, rtol=1e-6)


@pl.jit
def spmd_with(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP) as before:
        out[:] = pl.mul(a, 0.0)
    with pl.spmd(2, deps=[before], name_hint="halves") as grid:
        off = pl.tile.get_block_idx() * 32
        pl.store(pl.exp(pl.load(a, [off, 0], [32, 128])), [off, 0], out)
    with pl.at(level=pl.Level.CORE_GROUP, deps=[grid]):
        t = pl.load(out, [0, 0], [64, 128])
        pl.store(pl.add(t, 1.0), [0, 0], out)
    return out


def test_spmd_with_form_binds_a_task_id_and_names_the_kernel():
    prog = spmd_with.lower(X, np.zeros_like(X))
    assert prog.function("halves").attr("block_dim") == 2
    out = np.zeros_like(X)
    spmd_with(X, out)
    np.testing.assert_allclose(out, np.exp(X) + 1.0, rtol=1e-5)


def test_pl_at_role_on_an_on_chip_scope_is_an_error():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP, role=pl.Role.Orchestrator):  # <-\n"
                "        out[:] = pl.exp(b)\n    return out\n", ParseError)
    assert "role= is for levels above the core group" in err.message
