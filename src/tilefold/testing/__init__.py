"""Testing helpers: the E2E harness, precision comparison, and IR evidence checks."""

from tilefold.testing.harness import (
    RunReport,
    evidence_config,
    evidence_table,
    format_evidence_table,
    run_and_compare,
)
from tilefold.testing.precision import Comparison, compare, compare_outputs, random_inputs, tolerance_for

__all__ = ["Comparison", "RunReport", "compare", "compare_outputs", "evidence_config", "evidence_table",
           "format_evidence_table", "random_inputs", "run_and_compare", "tolerance_for"]

try:  # written in parallel by the sub-block tiling engineer
    from tilefold.testing.sub_block_evidence import SubBlockEvidence, sub_block_evidence  # noqa: F401
except ImportError:  # pragma: no cover
    pass
else:
    __all__ += ["SubBlockEvidence", "sub_block_evidence"]
