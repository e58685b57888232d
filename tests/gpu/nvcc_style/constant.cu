// A filter in constant memory, as Kernel Tuner's convolution and pnpoly examples keep theirs
// (cmem_args there; buffers.*.symbol here). The reference kernel reads the same values through
// a pointer, so the check fails unless hone filled the variable.
#define TAPS 17
__constant__ float taps[TAPS];

extern "C" __global__ void smooth(const float* x, float* y, const float* taps_global, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float acc = 0.0f;
#pragma unroll
        for (int t = 0; t < TAPS; ++t) acc += taps[t] * x[(i + t) % n];
        y[i] = acc;
    }
}

extern "C" __global__ void smooth_reference(const float* x, float* y, const float* taps_global,
                                            int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
#pragma unroll
    for (int t = 0; t < TAPS; ++t) acc += taps_global[t] * x[(i + t) % n];
    y[i] = acc;
}
