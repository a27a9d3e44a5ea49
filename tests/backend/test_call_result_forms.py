"""A call whose result is consumed only by a return, a yield or another call still runs on the device.

``return pl.store(tile, offsets, out)`` once lost its store: codegen lowers calls where they are statements and
recorded only variable names from a return, so the output kept its initial values (and TileAndBindSubBlock,
which looks for stores in statements, neither split nor guarded it). The front ends now bind such results
(language/call_results.py), codegen refuses a call left in a return / yield, and the verifier flags one.
Each case runs on the simulator and in golden, and both are compared with a numpy reference written here.
"""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.backend.codegen import InternalCheckError, generate
from tilefold.errors import TilefoldError
from tilefold.ir.expr import Call, Var
from tilefold.ir.stmt import AssignStmt, ReturnStmt, SeqStmts
from tilefold.passes.base import IRProperty
from tilefold.passes.verifier import check_properties
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(19)
HEAD = "import tilefold.language as pl\n\n\n@pl.program\nclass P:\n"
X = "x: pl.Tensor[[16, 64], pl.FP32]"
OUT = "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]"
T16 = "pl.Tensor[[16, 64], pl.FP32]"
LOAD = "t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)"


def _kernel(params: str, ret: str, body: str, func_type: str = "InCore") -> str:
    lines = "\n".join(f"        {ln}" if ln.strip() else "" for ln in body.strip("\n").splitlines())
    return (f"    @pl.function(type=pl.FunctionType.{func_type})\n"
            f"    def kernel(self, {params}) -> {ret}:\n{lines}\n")


def _check(src: str, inputs: dict, expected: dict, *, split: bool = True, rtol: float = 1e-5, atol: float = 1e-6,
           target: str = "Ascend910B") -> None:
    program = pl.parse(src)
    report = run_and_compare(program, inputs, target=target, options={"enable_auto_bind_sub_block": split})
    assert report.fault is None, report.summary()
    for name, ref in expected.items():
        np.testing.assert_allclose(report.golden_outputs[name], ref, rtol=rtol, atol=atol, err_msg=f"golden {name}")
        np.testing.assert_allclose(report.outputs[name], ref, rtol=rtol, atol=atol, err_msg=f"device {name}")
    assert report.matches, report.summary()


def _x(shape=(16, 64)) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("split", [True, False])
@pytest.mark.parametrize("store", ["pl.store", "pl.tile.store"])
def test_a_store_returned_directly_is_emitted(store, split):
    src = HEAD + _kernel(f"{X}, {OUT}", T16, f"{LOAD}\nreturn {store}(pl.tile.exp(t), [0, 0], out)")
    x = _x()
    _check(src, {"x": x, "out": np.zeros_like(x)}, {"out": np.exp(x)}, split=split)


def test_stores_returned_in_a_tuple_are_emitted():
    src = HEAD + _kernel(f"{X}, o1: pl.Out[{T16}], o2: pl.Out[{T16}]", f"tuple[{T16}, {T16}]",
                         f"{LOAD}\ny = pl.tile.exp(t)\nreturn pl.store(y, [0, 0], o1), pl.tile.store(t, [0, 0], o2)")
    x = _x()
    _check(src, {"x": x, "o1": np.zeros_like(x), "o2": np.zeros_like(x)}, {"o1": np.exp(x), "o2": x})


@pytest.mark.parametrize("split", [True, False])
def test_a_store_yielded_from_a_loop_is_emitted(split):
    src = HEAD + _kernel("x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
                         "pl.Tensor[[64, 64], pl.FP32]", """
for i, (acc,) in pl.range(4, init_values=(out,)):
    t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [i * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
    r = pl.yield_(pl.store(pl.tile.adds(t, 1.0), [i * 16, 0], acc))
return r
""")
    x = _x((64, 64))
    _check(src, {"x": x, "out": np.zeros_like(x)}, {"out": x + 1.0}, split=split)


@pytest.mark.parametrize("n", [0, 3])
def test_a_store_yielded_from_either_branch_of_an_if_is_emitted(n):
    src = HEAD + _kernel(f"{X}, n: pl.Scalar[pl.INDEX], {OUT}", T16, f"""
{LOAD}
if n > 1:
    r = pl.yield_(pl.store(pl.tile.exp(t), [0, 0], out))
else:
    r = pl.yield_(pl.tile.store(pl.tile.muls(t, 3.0), [0, 0], out))
return r
""")
    x = _x()
    _check(src, {"x": x, "n": n, "out": np.zeros_like(x)}, {"out": np.exp(x) if n > 1 else 3.0 * x})


def test_a_store_passed_on_to_another_store_is_emitted():
    src = HEAD + _kernel(f"{X}, out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]", "pl.Tensor[[16, 128], pl.FP32]",
                         f"{LOAD}\nreturn pl.store(pl.tile.exp(t), [0, 64], pl.store(t, [0, 0], out))")
    x = _x()
    _check(src, {"x": x, "out": np.zeros((16, 128), np.float32)}, {"out": np.concatenate([x, np.exp(x)], axis=1)})


def test_a_kernel_launch_returned_by_the_orchestration_runs():
    src = HEAD + _kernel(f"{X}, {OUT}", T16, f"{LOAD}\nout = pl.store(pl.tile.exp(t), [0, 0], out)\nreturn out") + (
        "\n    @pl.function(type=pl.FunctionType.Orchestration)\n"
        f"    def main(self, {X}, {OUT}) -> {T16}:\n"
        "        return self.kernel(x, out)\n")
    x = _x()
    _check(src, {"x": x, "out": np.zeros_like(x)}, {"out": np.exp(x)})


def test_an_atomic_store_returned_directly_adds():
    src = HEAD + _kernel(f"{X}, out: pl.InOut[{T16}]", T16,
                         f"{LOAD}\nreturn pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)")
    x, old = _x(), _x()
    _check(src, {"x": x, "out": old.copy()}, {"out": old + x})


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
def test_a_matmul_result_stored_in_the_return_is_emitted(target):
    src = HEAD + _kernel("a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], "
                         "out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]", "pl.Tensor[[32, 32], pl.FP32]", """
ta: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
tb: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
return pl.store(pl.tile.matmul(ta, tb), [0, 0], out)
""")
    a = RNG.standard_normal((32, 64)).astype(np.float16)
    b = RNG.standard_normal((64, 32)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    _check(src, {"a": a, "b": b, "out": np.zeros((32, 32), np.float32)}, {"out": ref}, rtol=1e-3, atol=1e-3,
           target=target)


def test_an_element_write_yielded_from_a_loop_and_returned_is_emitted():
    src = HEAD + _kernel("a: pl.Tensor[[4, 4], pl.INT32], out: pl.InOut[pl.Tensor[[4, 4], pl.INT32]]",
                         "pl.Tensor[[4, 4], pl.INT32]", """
for i, (o,) in pl.range(4, init_values=(out,)):
    v = pl.tensor.read(a, [i, 0])
    out2 = pl.yield_(pl.write(o, [i, 3 - i], v + 1))
return pl.write(out2, [0, 0], 7)
""")
    a = RNG.integers(0, 9, (4, 4)).astype(np.int32)
    ref = np.full((4, 4), 2, np.int32)
    ref[np.arange(4), 3 - np.arange(4)] = a[:, 0] + 1
    ref[0, 0] = 7
    _check(src, {"a": a, "out": np.full((4, 4), 2, np.int32)}, {"out": ref}, rtol=0, atol=0)


def test_a_tile_element_write_yielded_from_a_loop_is_kept():
    src = HEAD + _kernel(f"{X}, {OUT}", T16, f"""
{LOAD}
for i, (acc,) in pl.range(4, init_values=(t,)):
    r = pl.yield_(pl.tile.write(acc, [i, 0], 5.0))
return pl.store(r, [0, 0], out)
""")
    x = _x()
    ref = x.copy()
    ref[:4, 0] = 5.0
    _check(src, {"x": x, "out": np.zeros_like(x)}, {"out": ref})


def test_a_custom_op_result_stored_in_the_return_is_emitted():
    from tilefold.custom import register_custom_op, unregister_custom_op

    register_custom_op("pyfix.triple", lambda v: (v * 3.0).astype(np.float32), replace=True)
    try:
        src = HEAD + _kernel(f"{X}, {OUT}", T16, f"""
{LOAD}
init: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
return pl.store(pl.tile.custom("pyfix.triple", ins=[t], outs=[init],
                indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
                iterator_types=[pl.parallel, pl.parallel], no_side_effect=True), [0, 0], out)
""")
        x = _x()
        _check(src, {"x": x, "out": np.zeros_like(x)}, {"out": 3.0 * x})
    finally:
        unregister_custom_op("pyfix.triple")


def test_the_jit_form_binds_a_store_returned_or_yielded_inside_a_scope():
    @pl.jit
    def blocks(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                out = pl.assemble(out, pl.exp(pl.slice(x, [16, 64], [i * 16, 0])), [i * 16, 0])
        return out

    x = _x((64, 64))
    out = np.zeros_like(x)
    blocks(x, out)
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-5, atol=1e-6)


def test_the_parsed_function_binds_the_returned_call():
    src = HEAD + _kernel(f"{X}, {OUT}", T16, f"{LOAD}\nreturn pl.store(t, [0, 0], out)")
    fn = pl.parse(src).functions[0]
    ret = fn.body.stmts[-1]
    assert isinstance(ret, ReturnStmt) and isinstance(ret.values[0], Var)
    bound = fn.body.stmts[-2]
    assert isinstance(bound, AssignStmt) and bound.var is ret.values[0] and bound.value.op_name == "tile.store"
    assert pl.parse(pl.parse(src).as_python()).functions  # the printed form parses back


def _unbound_return_program():
    """The store bound by the parser, moved back into the return by hand (what a buggy pass could build)."""
    src = HEAD + _kernel(f"{X}, {OUT}", T16, f"{LOAD}\nreturn pl.store(t, [0, 0], out)")
    program = pl.parse(src)
    fn = program.functions[0]
    *head, bound, ret = fn.body.stmts
    assert isinstance(bound.value, Call)
    fn2 = fn.with_fields(body=SeqStmts((*head, ReturnStmt((bound.value,), span=ret.span))))
    return program.with_fields(functions=(fn2,))


def test_codegen_refuses_a_call_left_in_a_return():
    from tilefold.passes.infer_tile_memory_space import infer_tile_memory_space
    from tilefold.passes.memory_planning.allocate_memory_addr import plan_memory

    program = plan_memory(infer_tile_memory_space()(_unbound_return_program()), "Ascend910B")
    with pytest.raises(InternalCheckError, match="returns the call tile.store directly"):
        generate(program, "Ascend910B")
    assert issubclass(InternalCheckError, TilefoldError)


def test_the_verifier_flags_a_call_left_in_a_return():
    violations = check_properties(_unbound_return_program(), {IRProperty.NormalizedStmtStructure})
    assert any("returned directly" in v.message for v in violations)
