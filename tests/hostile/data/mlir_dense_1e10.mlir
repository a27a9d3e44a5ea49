func.func @k(%a: memref<16x64xf32>, %o: memref<16x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c = arith.constant dense<1.0> : tensor<100000x100000xf32>
  return
}
