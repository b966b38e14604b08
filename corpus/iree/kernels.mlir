// The IREE corpus inputs (see README.md): one function per case; iree-compile lowers each to a
// single dispatch, whose HIP code object build.py keeps. Static shapes: the workgroup count is
// a constant of the export (no push constants).

// f32 GEMM, C = A @ B, 128x64 @ 64x96.
func.func @matmul_f32(%a: tensor<128x64xf32>, %b: tensor<64x96xf32>) -> tensor<128x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x96xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x96xf32>) -> tensor<128x96xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x96xf32>)
                     outs(%c : tensor<128x96xf32>) -> tensor<128x96xf32>
  return %r : tensor<128x96xf32>
}

// f16 GEMM with f32 accumulation and result, 128x128 @ 128x128.
func.func @matmul_f16(%a: tensor<128x128xf16>, %b: tensor<128x128xf16>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x128xf16>, tensor<128x128xf16>)
                     outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// Elementwise f32: relu(x + y) over 1000 elements.
func.func @add_relu(%x: tensor<1000xf32>, %y: tensor<1000xf32>) -> tensor<1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x, %y : tensor<1000xf32>, tensor<1000xf32>) outs(%e : tensor<1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1000xf32>
  return %r : tensor<1000xf32>
}

// Row sums: 64 rows of 300 f32.
func.func @row_sum(%x: tensor<64x300xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x300xf32>) outs(%c : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
