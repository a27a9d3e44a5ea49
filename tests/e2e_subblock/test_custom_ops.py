"""The seed's 7 general custom-op E2E cases (Mix Cube/Vector: the cube computes c = a @ b, an AIV kernel
applies the custom op): identity, broadcast, dim0 reduction, dim1 reduction, non-tensor scalar operand,
multi-output, and a custom macro op. Each runs on Ascend910B and Ascend950 with TileAndBindSubBlock on and
off against golden; on, the IR evidence shows the 1:2 split along the expected axis."""

from __future__ import annotations

import numpy as np
import pytest
from e2e_sb_helpers import TARGETS, check_on_and_off, load

CASES = {
    # case: (example file, axis of the split in the vector function)
    "identity": ("e2e_identity", 0),
    "broadcast": ("e2e_broadcast", 0),
    "dim0_reduction": ("e2e_reduce_dim0", 1),  # [reduction, parallel]: dim 0 stays whole
    "dim1_reduction": ("e2e_reduce_dim1", 0),  # [parallel, reduction]: dim 1 stays whole
    "scalar_operand": ("e2e_scalar", 0),
    "multi_output": ("e2e_multi_output", 0),
    "macro": ("e2e_macro", 0),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_general_custom_op_case(case, target):
    name, axis = CASES[case]
    base, tiled = check_on_and_off(case, load(name), target, {"vector": axis})
    assert base.outputs.keys() == tiled.outputs.keys()


def test_dim0_reduction_result_is_the_column_sum_of_the_matmul():
    # not only golden == device: the numbers are the column sums of a @ b
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (32, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (32, 64)).astype(np.float16)
    _, tiled = check_on_and_off("dim0_reduction/explicit", load("e2e_reduce_dim0"), "Ascend910B", {"vector": 1},
                                inputs={"a": a, "b": b})
    want = (a.astype(np.float32) @ b.astype(np.float32)).sum(axis=0, keepdims=True)
    np.testing.assert_allclose(tiled.outputs["out"], want, rtol=1e-4, atol=1e-4)
