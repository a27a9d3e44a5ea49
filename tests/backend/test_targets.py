"""Targets are data: core counts, memory sizes, alignment, data paths and costs per chip."""

import pytest

from tilefold.errors import NotSupportedError
from tilefold.ir.types import MemorySpace as M
from tilefold.targets import get_target, list_targets

KIB = 1024


def test_default_target_is_910b():
    assert get_target().name == "Ascend910B"
    assert get_target(None) is get_target("ascend910b")


def test_910b_numbers():
    t = get_target("Ascend910B")
    assert (t.num_aic, t.num_aiv) == (24, 48)
    assert t.capacity(M.Mat) == 512 * KIB
    assert t.capacity(M.Left) == t.capacity(M.Right) == 64 * KIB
    assert t.capacity(M.Acc) == 128 * KIB
    assert t.capacity(M.Vec) == 192 * KIB
    assert t.align(M.Vec) == t.align(M.Mat) == 32
    assert t.align(M.Acc) == 512
    assert t.acc_fractal == (16, 16)
    assert t.acc_fractal_bytes(4) == 1024


def test_950_memories():
    t = get_target("Ascend950")
    assert t.capacity(M.Acc) == 256 * KIB
    assert t.capacity(M.Vec) == 248 * KIB
    assert t.supports_path(M.Acc, M.Vec)
    assert not get_target("Ascend910B").supports_path(M.Acc, M.Vec)


@pytest.mark.parametrize("name", ["Ascend910B", "Ascend910C", "Ascend950"])
def test_common_paths(name):
    t = get_target(name)
    for src, dst in [(M.DDR, M.Mat), (M.DDR, M.Vec), (M.Mat, M.Left), (M.Mat, M.Right), (M.Vec, M.Vec),
                     (M.Acc, M.DDR), (M.Vec, M.DDR)]:
        assert t.supports_path(src, dst), (name, src, dst)
    assert not t.supports_path(M.DDR, M.Acc)
    assert not t.supports_path(M.Vec, M.Mat)


def test_mat_to_mat_only_missing_on_910c():
    assert get_target("Ascend910B").supports_path(M.Mat, M.Mat)
    assert get_target("Ascend950").supports_path(M.Mat, M.Mat)
    assert not get_target("Ascend910C").supports_path(M.Mat, M.Mat)


def test_costs_present():
    c = get_target().costs
    assert c.scalar_op > 0 and c.cube_fractals_per_cycle > 0
    dma = get_target().path_cost(M.DDR, M.Vec)
    assert dma.bytes_per_cycle > 0 and dma.latency > 0
    # each chip family has its own table: 950 does not borrow 910B's vector prices
    assert get_target("Ascend910B").costs.table is get_target("Ascend910C").costs.table
    assert get_target("Ascend950").costs.table is not get_target("Ascend910B").costs.table


def test_unknown_target():
    with pytest.raises(NotSupportedError, match="unknown target"):
        get_target("Ascend310")
    assert list_targets() == ["Ascend910B", "Ascend910C", "Ascend950"]
