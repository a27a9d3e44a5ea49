"""@pl.inline helpers in a module of their own (imported by test_program_inline.py): their bodies are parsed from
this file, with this module's constants."""

import tilefold.language as pl

OFFSET = 1.5  # a constant of this module: the helper reads it, the caller's module has none of that name


@pl.inline
def shifted_square(x: pl.Tile[[16, 64], pl.FP32]) -> pl.Tile[[16, 64], pl.FP32]:
    y = pl.adds(x, OFFSET)
    return pl.mul(y, y)


@pl.inline
def twice_shifted_square(x: pl.Tile[[16, 64], pl.FP32]) -> pl.Tile[[16, 64], pl.FP32]:
    return shifted_square(shifted_square(x))  # a helper calling a helper of its own module
