# exit: 2
# expect: does not fit in Vec
# argv: run {data}/mlir_alloc_4tib.mlir
# memref.alloc of 10^6 x 10^6 f32 (4 TiB): the golden reference allocated it with numpy first (MemoryError, exit 4).
