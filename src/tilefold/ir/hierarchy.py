"""PyPTO's hierarchy levels as the IR records them (``ScopeStmt.level``, a function's ``level`` / ``role``
attributes): which levels are on-chip scopes, and the names OutlineHierarchyScopes gives outlined functions
(dev/07-outline_hierarchy_scopes). What each level means on one simulated chip: frontend/hierarchy.py."""

from __future__ import annotations

#: on-chip levels: a ``pl.at`` scope there is an InCore scope (OutlineIncoreScopes)
ON_CHIP = ("CORE_GROUP", "CORE", "AIC", "AIV")
#: levels whose orchestrator is the simulated host's orchestration code
ORCHESTRATION_LEVELS = ("CHIP", "HOST", "CLUSTER_0", "CLUSTER_1", "CLUSTER_2", "GLOBAL")
#: level -> the suffix of an outlined function's name (PyPTO's table)
LEVEL_SUFFIX = {"AIV": "aiv", "AIC": "aic", "CORE_GROUP": "core_group", "CHIP_DIE": "chip_die", "CHIP": "chip",
                "HOST": "host", "CLUSTER_0": "cluster0", "CLUSTER_1": "cluster1", "CLUSTER_2": "cluster2",
                "GLOBAL": "global"}
ROLE_SUFFIX = {"Orchestrator": "orch", "Worker": "worker"}




def outlined_name(parent: str, level: str, role: str | None, index: int) -> str:
    """PyPTO's ``{parent}_{level}[_{role}]_{index}``."""
    role_part = f"_{ROLE_SUFFIX[role]}" if role in ROLE_SUFFIX else ""
    return f"{parent}_{LEVEL_SUFFIX[level]}{role_part}_{index}"


__all__ = ["LEVEL_SUFFIX", "ON_CHIP", "ORCHESTRATION_LEVELS", "ROLE_SUFFIX", "outlined_name"]
