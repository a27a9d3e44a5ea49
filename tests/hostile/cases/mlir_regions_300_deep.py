# exit: 2
# expect: regions nested more than 64 deep
# expect: regions_300_deep.mlir:70:22
# argv: run {data}/regions_300_deep.mlir
# A HIVM kernel with 300 nested scf.execute_region bodies: was a RecursionError (exit 4) inside the MLIR reader.
