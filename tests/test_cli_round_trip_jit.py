"""``tilefold opt JITFILE --round-trip --verify`` on @pl.jit files: no spurious re-parse difference.

OutlineIncoreScopes keeps the orchestration's variables as the outlined kernel's parameters (one Var object in
two functions). The printed text gives each function its own parameters, so the re-parsed program has two
distinct objects; structural equality (and the hash) must treat each function as its own binding scope."""

from pathlib import Path

import pytest

from tilefold import cli
from tilefold.ir.expr import Var
from tilefold.ir.stmt import ParamDirection
from tilefold.ir.structural import structural_difference, structural_equal, structural_hash

ROOT = Path(__file__).resolve().parent.parent


def _run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("path, kernel, passes", [
    ("examples/jit/hello_world.py", None, []),
    ("examples/jit/hello_world.py", None, ["--passes", "default"]),
    ("examples/jit/softmax.py", "softmax_tile", []),
    ("examples/jit/matmul.py", "matmul_tile", ["--passes", "default"]),
])
def test_jit_file_round_trips(path, kernel, passes, capsys):
    argv = ["opt", ROOT / path, "--round-trip", "--verify", *passes] + (["--kernel", kernel] if kernel else [])
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "round trip" not in err and "@pl.program" in out


def _two_functions(shared: bool):
    """orchestration(x) calls kernel(x); ``shared``: the kernel's parameter is the orchestration's Var object."""
    from tilefold.ir.shapes import make_shape
    from tilefold.ir.stmt import Function, FunctionType, Program, ReturnStmt, SeqStmts
    from tilefold.ir.types import DataType, TensorType

    t = TensorType(make_shape((16, 64)), DataType.FP32)
    x = Var("x", t)
    kx = x if shared else Var("x", t)
    kernel = Function("kernel", (kx,), (ParamDirection.In,), (t,), SeqStmts((ReturnStmt((kx,)),)),
                      FunctionType.InCore)
    orch = Function("main", (x,), (ParamDirection.In,), (t,), SeqStmts((ReturnStmt((x,)),)),
                    FunctionType.Orchestration)
    return Program("p", (kernel, orch))


def test_a_var_shared_by_two_functions_equals_two_distinct_ones():
    a, b = _two_functions(shared=True), _two_functions(shared=False)
    assert structural_difference(a, b) is None
    assert structural_equal(a, b) and structural_hash(a) == structural_hash(b)


def test_functions_still_compare_their_bodies():
    """Scoping per function must not hide a real difference: a kernel returning another value differs."""
    from tilefold.ir.stmt import ReturnStmt, SeqStmts

    a = _two_functions(shared=True)
    kernel = a.functions[0]
    y = Var("y", kernel.params[0].type)
    other = kernel.with_fields(params=(kernel.params[0], y), param_directions=(ParamDirection.In,) * 2,
                               body=SeqStmts((ReturnStmt((y,)),)))
    b = a.with_fields(functions=(other, a.functions[1]))
    c = a.with_fields(functions=(kernel.with_fields(params=(kernel.params[0], y),
                                                    param_directions=(ParamDirection.In,) * 2), a.functions[1]))
    assert structural_difference(b, c) is not None
    assert structural_hash(b) != structural_hash(c)
