from __future__ import annotations

import pytest
from sb_kernels import register_kernels


@pytest.fixture(autouse=True, scope="session")
def _sub_block_kernels():
    register_kernels()
    yield
