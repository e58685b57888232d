// What kernels_src/reduce.cu reduces: the sum of reduce_load(x) over the input, combined with
// reduce_combine. Included through kernel.include_dirs (configs/reduce.yaml): editing this
// header changes the kernel's source hash, so the next `hone tune` measures again.
#pragma once

// Each input element's contribution: its value (a 64-bit sum of 32-bit integers is exact in
// any order, so every configuration matches the reference bit for bit).
__device__ __forceinline__ unsigned long long reduce_load(int x) {
    return static_cast<unsigned long long>(static_cast<long long>(x));
}

__device__ __forceinline__ unsigned long long reduce_combine(unsigned long long a,
                                                             unsigned long long b) {
    return a + b;
}
