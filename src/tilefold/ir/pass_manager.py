"""``tilefold.ir.pass_manager``: PyPTO's module path; the code is ``tilefold.compat.pass_manager`` (a forwarder:
nothing inside tilefold imports it)."""

from tilefold.compat.pass_manager import OptimizationStrategy, PassDumpLevel, PassManager, VerificationLevel

__all__ = ["OptimizationStrategy", "PassDumpLevel", "PassManager", "VerificationLevel"]
