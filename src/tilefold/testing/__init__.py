"""Testing helpers: the E2E harness, precision comparison, IR evidence checks and the round-trip instrument."""

from tilefold.testing.harness import (
    RunReport,
    evidence_config,
    evidence_table,
    format_evidence_table,
    run_and_compare,
)
from tilefold.testing.precision import Comparison, compare, compare_outputs, random_inputs, tolerance_for
from tilefold.testing.round_trip import RoundTripError, RoundTripInstrument, round_trip_check
from tilefold.testing.sub_block_evidence import SubBlockEvidence, sub_block_evidence

__all__ = ["Comparison", "RoundTripError", "RoundTripInstrument", "RunReport", "SubBlockEvidence", "compare",
           "compare_outputs", "evidence_config", "evidence_table", "format_evidence_table", "random_inputs",
           "round_trip_check", "run_and_compare", "sub_block_evidence", "tolerance_for"]
