"""Every ``pl.X`` name PyPTO's published material writes exists on ``tilefold.language`` with the right kind, so a
module using it imports (decorator arguments, annotations and defaults are evaluated by Python); a kernel-only
function called at Python level raises tilefold's "parsed, not run" error. The list is our own (CI has no copy of
PyPTO's pages)."""

from __future__ import annotations

import enum

import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError
from tilefold.frontend.dsl import TypeMarker

ENUM_MEMBERS = {
    "Level": ["AIV", "AIC", "CORE_GROUP", "CHIP_DIE", "CHIP", "HOST", "CLUSTER_0", "CLUSTER_1", "CLUSTER_2", "GLOBAL",
              "POD", "NODE", "UMA"],
    "Role": ["Orchestrator", "Worker", "SubWorker"],
    "ScopeMode": ["AUTO", "MANUAL"],
    "PipeType": ["S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"],
    "CompactMode": ["normal"],
    "FunctionType": ["Opaque", "Orchestration", "InCore", "AIC", "AIV", "Group", "Graph"],
    "SplitMode": ["NONE", "UP_DOWN", "LEFT_RIGHT"],
    "TensorLayout": ["ND", "DN", "NZ"],
}
SUBSCRIPTABLE = ["Tensor", "Tile", "Scalar", "Out", "InOut", "Tuple", "Array", "DistributedTensor"]
KERNEL_ONLY = ["cluster", "split_aiv", "incore", "create_l1", "dim", "dump_tag", "func_attr", "static_assert",
               "static_print", "submit", "spmd_submit", "load", "store", "range", "tensor.dim", "tensor.create",
               "system.syncall", "system.fence", "system.cacheinvalid", "system.available_aiv_count",
               "system.available_cluster_count", "system.task_dummy", "system.sync_src", "system.sync_dst",
               "system.bar_v", "system.bar_m", "system.bar_all", "system.reserve_buffer", "tile.load", "add"]


def _get(path: str):
    obj = pl
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", sorted(ENUM_MEMBERS))
def test_enums_have_pyptos_members(name):
    cls = getattr(pl, name)
    assert isinstance(cls, type) and issubclass(cls, enum.Enum)
    for member in ENUM_MEMBERS[name]:
        assert isinstance(getattr(cls, member), cls), f"pl.{name}.{member}"


def test_level_aliases_are_their_canonical_members():
    assert pl.Level.POD is pl.Level.CLUSTER_0
    assert pl.Level.NODE is pl.Level.HOST
    assert pl.Level.UMA is pl.Level.CHIP
    assert pl.Level.GLOBAL is not pl.Level.HOST


@pytest.mark.parametrize("name", SUBSCRIPTABLE)
def test_type_constructors_subscript(name):
    marker = getattr(pl, name)[[16, 16], pl.FP32]
    assert isinstance(marker, TypeMarker) and marker.kind == name


def test_annotation_aliases_and_sentinels():
    assert isinstance(pl.TaskId, TypeMarker) and pl.TaskId.kind == "Scalar" and pl.TaskId.item == pl.TASK_ID
    assert repr(pl.RUNTIME) == "pl.RUNTIME"
    assert {pl.MX_A_ZZ.item, pl.MX_B_NN.item} == {"MX_A_ZZ", "MX_B_NN"}
    assert pl.ConstInt(0x1000, pl.INT64).value == 4096  # the IR builder's constant
    assert isinstance(pl.InlineFunction, type)


@pytest.mark.parametrize("name", KERNEL_ONLY)
def test_kernel_only_functions_say_they_are_parsed_not_run(name):
    fn = _get(name)
    with pytest.raises(NotSupportedError, match="only meaningful inside a @pl.program"):
        fn()


def test_a_name_pypto_lacks_is_still_an_attribute_error():
    with pytest.raises(AttributeError):
        _get("system.no_such_primitive")
    with pytest.raises(AttributeError):
        _get("tensor.no_such_op")


def test_the_hierarchy_function_example_imports_and_parses():
    # the file the issue reported dying with AttributeError: GLOBAL before tilefold's parser saw it
    @pl.program
    class P:
        @pl.function(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator)
        def main(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
            return out

    fn = P.function("main")
    assert fn.attr("level") == "GLOBAL" and fn.attr("role") == "Orchestrator"
