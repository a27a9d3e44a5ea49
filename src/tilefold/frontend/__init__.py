"""The front end: ``pl`` source text -> ``ir.Program``, and the ``pl`` printer beside the parser.

- ``parser`` (``Parser``: the ``@pl.program`` form), built from ``parse_base`` (the shared IR builder: scopes,
  SSA, spans), ``program_form``, ``statements``, ``expressions``, ``constants`` and ``annotations``;
- ``jit_form`` / ``jit_scopes``: the ``@pl.jit`` form (tensor-level operators inside ``pl.at`` scopes) on the
  same builder;
- ``dsl``: the run-time markers of the ``pl`` names (the parser reads them, nothing executes them);
- ``printer``: IR -> ``pl`` text. Importing the front end installs it as ``tilefold.ir``'s printer hook.

It imports ``ir``, ``ops`` and the analyses below it; ``tilefold.language`` (the ``pl`` facade) re-exports it.
"""

from tilefold.frontend import printer as _printer  # noqa: F401  (installs the ir printer hook)
