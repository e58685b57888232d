// Error checks shared by the bench probes: a failed call prints where it was and exits 1.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

// CUDA runtime calls.
#define CK(x)                                                                               \
    do {                                                                                    \
        cudaError_t e_ = (x);                                                               \
        if (e_ != cudaSuccess) {                                                            \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                                   \
        }                                                                                   \
    } while (0)

// Calls whose success is 0 (the driver API, CUPTI): the call and its code.
#define CHECK_ZERO(x)                                                                  \
    do {                                                                               \
        auto r_ = (x);                                                                 \
        if (r_ != 0) {                                                                 \
            std::fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)r_); \
            std::exit(1);                                                              \
        }                                                                              \
    } while (0)
