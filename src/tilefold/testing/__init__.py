"""Testing helpers: the E2E harness, precision comparison, and IR evidence checks."""

from tilefold.testing.harness import (
    RunReport,
    evidence_config,
    evidence_table,
    format_evidence_table,
    run_and_compare,
)
from tilefold.testing.precision import Comparison, compare, compare_outputs, random_inputs, tolerance_for
from tilefold.testing.sub_block_evidence import SubBlockEvidence, sub_block_evidence

__all__ = ["Comparison", "RunReport", "SubBlockEvidence", "compare", "compare_outputs", "evidence_config",
           "evidence_table", "format_evidence_table", "random_inputs", "run_and_compare", "sub_block_evidence",
           "tolerance_for"]
