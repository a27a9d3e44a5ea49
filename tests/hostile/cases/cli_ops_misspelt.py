# exit: 1
# expect: did you mean
# expect: tile.load
# argv: ops tile.lod
import tilefold.language as pl
