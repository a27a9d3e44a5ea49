# exit: 2
# expect: a dense constant of 10,000,000,000 elements
# expect: mlir_dense_1e10.mlir:2:23
# argv: run {data}/mlir_dense_1e10.mlir
# dense<1.0> : tensor<100000x100000xf32>: xDSL expands the splat element by element (was a MemoryError, exit 4).
