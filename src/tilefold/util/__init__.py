"""The bottom layer: mechanisms every other layer shares and that know nothing of tilefold's IR.

- ``gc``: ``no_gc()``, the one pause of Python's cyclic garbage collector (parsing, printing and the passes
  build large acyclic trees that reference counting frees).
"""
