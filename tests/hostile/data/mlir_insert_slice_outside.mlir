func.func @insert_oob(%a: memref<4x32xf32>, %o: memref<8x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %one = arith.constant 1.0 : f32
  %buf = memref.alloc() : memref<4x32xf32>
  hivm.hir.load ins(%a : memref<4x32xf32>) outs(%buf : memref<4x32xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<4x32xf32> to tensor<4x32xf32>
  %z = tensor.empty() : tensor<8x64xf32>
  %f = hivm.hir.vbrc ins(%one : f32) outs(%z : tensor<8x64xf32>) -> tensor<8x64xf32>
  %s = tensor.insert_slice %t into %f[6, 40] [4, 32] [1, 1] : tensor<4x32xf32> into tensor<8x64xf32>
  hivm.hir.store ins(%s : tensor<8x64xf32>) outs(%o : memref<8x64xf32>)
  return
}
