"""The one fresh-name generator: ``base``, ``base_1``, ``base_2``, ... never a name already taken; a function's
supply has taken every variable name of the function, whichever statement binds it."""

from __future__ import annotations

import tilefold.language as pl
from tilefold.ir.names import NameSupply, function_names, name_supply, unique_name


def test_fresh_names_count_up_from_the_bare_base():
    names = NameSupply()
    assert [names.fresh("t") for _ in range(4)] == ["t", "t_1", "t_2", "t_3"]
    assert names.fresh("u") == "u"


def test_fresh_names_skip_every_taken_name_seeded_or_added():
    names = NameSupply(["t", "t_2"])
    names.add("t_3")
    assert [names.fresh("t") for _ in range(3)] == ["t_1", "t_4", "t_5"]
    assert "t_4" in names and "t_6" not in names


def test_unique_name_takes_what_it_returns():
    taken = {"x"}
    assert unique_name(taken, "x") == "x_1"
    assert taken == {"x", "x_1"}


SRC = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        for i, (acc,) in pl.range(0, 4, 1, init_values=(t,)):
            nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)
            res = pl.yield_(nxt)
        if 1 > 0:
            picked: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(res)
            chosen = pl.yield_(picked)
        else:
            other: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.neg(res)
            chosen = pl.yield_(other)
        out = pl.store(chosen, [0, 0], out)
        return out
'''


def test_a_functions_names_are_every_binding_in_it():
    fn = pl.parse(SRC).functions[0]
    assert function_names(fn) == {"x", "out", "t", "i", "acc", "nxt", "res", "picked", "other", "chosen"}
    names = name_supply(fn)
    assert [names.fresh(b) for b in ("i", "acc", "res", "chosen", "tmp")] == ["i_1", "acc_1", "res_1", "chosen_1",
                                                                               "tmp"]


def test_a_seed_is_collected_once_on_first_use_and_counts_as_taken():
    calls = []

    def seed() -> list[str]:
        calls.append(1)
        return ["t", "t_1"]

    names = NameSupply(["u"], seed=seed)
    assert calls == []
    assert names.fresh("t") == "t_2" and names.fresh("u") == "u_1" and "t_1" in names
    assert calls == [1]
