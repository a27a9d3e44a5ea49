"""PyPTO's hierarchy levels and roles on one simulated chip (dev/07-outline_hierarchy_scopes).

``with pl.at(level=L, role=R):`` and ``@pl.function(level=L, role=R)`` place code at a level of PyPTO's machine
hierarchy. tilefold simulates one chip under one host, so every grouping above the chip (its host, a pod
``CLUSTER_0``, ``CLUSTER_1`` / ``CLUSTER_2``, the whole system ``GLOBAL``) holds exactly that chip:

- an **Orchestrator** (or no role) at CHIP, HOST, CLUSTER_0/1/2 or GLOBAL is orchestration code; it runs on the
  simulated host, in program order with the code around it (values are those of the same statements written
  without the scope). The scope is outlined into its own function, named as PyPTO names it
  (``{parent}_{level}[_{role}]_{n}``, aliases resolved: ``pl.Level.POD`` gives ``..._cluster0_0``);
- a **Worker** at CHIP is the chip's own code: the same as an orchestrator there;
- a **Worker** above the chip (HOST, CLUSTER_n, GLOBAL) runs once on each member of that level (each host, each
  chip of a pod): data parallel over several chips, which one simulated chip cannot show: refused;
- ``CHIP_DIE`` names one die of a multi-die chip; tilefold models a chip as one whole: refused;
- a **SubWorker** is declared as a function, never as a ``with`` scope (PyPTO refuses the scope too), and its
  function form (an embedded host callable) is not supported.

CORE_GROUP / CORE / AIC / AIV (no role) are the on-chip scopes the front end has always read (an InCore scope).
"""

from __future__ import annotations

import ast
from typing import Any

from tilefold.errors import NotSupportedError
from tilefold.ir.hierarchy import LEVEL_SUFFIX, ON_CHIP, ORCHESTRATION_LEVELS, ROLE_SUFFIX, outlined_name


def canonical_level(p: Any, node: Any, spelt: str) -> str:
    """The canonical member name of ``pl.Level.<spelt>`` (an alias resolves: POD -> CLUSTER_0)."""
    from tilefold.frontend.dsl import Level

    member = Level.__members__.get(spelt)
    if member is None:
        raise p.error(node, f"unknown level pl.Level.{spelt}",
                      hint="one of " + ", ".join(f"pl.Level.{n}" for n in Level.__members__))
    return member.name


def role_of(p: Any, node: Any) -> str:
    """The member name of a ``role=pl.Role.<X>`` option."""
    from tilefold.frontend.dsl import Role

    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "Role" \
            and node.attr in Role.__members__:
        return node.attr
    raise p.error(node, "role= must be a pl.Role member", hint="pl.Role.Orchestrator or pl.Role.Worker")


def check_placement(p: Any, node: Any, level: str, role: str | None, *, scope: bool) -> None:
    """Refuse, located, a level / role pair with no meaning on one simulated chip (see the module doc)."""
    where = "a pl.at scope" if scope else "a @pl.function"
    if role == "SubWorker":
        if scope:
            raise p.error(node, "role=pl.Role.SubWorker is not a pl.at scope",
                          hint="PyPTO declares a SubWorker as a @pl.function(level=..., role=pl.Role.SubWorker)")
        raise NotSupportedError("a SubWorker function (a host callable embedded in the program) is not supported",
                                span=p.span(node), hint="write its work as orchestration code or a kernel")
    if level in ON_CHIP:
        if role is not None:
            raise p.error(node, f"role= is for levels above the core group; pl.Level.{level} takes none",
                          hint=f"drop role=, or use a hierarchy level such as pl.Level.HOST for {where}")
        return
    if level == "CHIP_DIE":
        raise NotSupportedError(f"{where} at pl.Level.CHIP_DIE (one die of a multi-die chip) is not supported: "
                                "tilefold models a chip as one whole", span=p.span(node),
                                hint="use pl.Level.CHIP")
    if level == "CLUSTER":
        raise p.error(node, "pl.Level.CLUSTER names no hierarchy level of its own",
                      hint="use pl.Level.CLUSTER_0 (pl.Level.POD), CLUSTER_1 or CLUSTER_2")
    if role == "Worker" and level != "CHIP":
        raise NotSupportedError(f"a Worker at pl.Level.{level} runs once on each member of that level (several "
                                "chips or hosts): tilefold simulates one chip", span=p.span(node),
                                hint=f"use role=pl.Role.Orchestrator at pl.Level.{level}, or a Worker at "
                                     "pl.Level.CHIP")


__all__ = ["LEVEL_SUFFIX", "ON_CHIP", "ORCHESTRATION_LEVELS", "ROLE_SUFFIX", "canonical_level", "check_placement",
           "outlined_name", "role_of"]
