"""CanonicalizeTileSlice's identity: its pass name, CLI name and the IR properties it requires and produces.

Contract: constants only. Every module of the package names the pass through ``PASS_NAME`` (remarks carry it),
and the pass object in ``__init__`` is built from ``PASS_NAME``, ``CLI_NAME`` and ``PROPERTIES``.
"""

from __future__ import annotations

from tilefold.passes.base import IRProperty

PASS_NAME = "CanonicalizeTileSlice"
CLI_NAME = "canonicalize-tile-slice"
# required and produced (the pass keeps every one of them; it invalidates nothing)
PROPERTIES = (
    IRProperty.SSAForm,
    IRProperty.SplitIncoreOrch,
    IRProperty.IncoreTileOps,
    IRProperty.TileOps2D,
    IRProperty.NormalizedStmtStructure,
)
