# exit: 0
# expect: tilefold 0.
# argv: --version
import tilefold.language as pl
