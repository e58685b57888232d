// The CUDA driver, loaded with dlopen on first use: hone runs (`hone check`) where there is no
// driver, and links no libcuda. cuda.h supplies the types and, through its #defines, the
// versioned symbol names (cuMemAlloc -> cuMemAlloc_v2), which are what dlsym looks up.
#pragma once
#include <cuda.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace hone::cu {

// clang-format off
#define HONE_CUDA_FUNCTIONS(X) \
    X(cuInit) \
    X(cuDriverGetVersion) \
    X(cuGetErrorName) \
    X(cuGetErrorString) \
    X(cuDeviceGetCount) \
    X(cuDeviceGet) \
    X(cuDeviceGetName) \
    X(cuDeviceGetUuid) \
    X(cuDeviceGetAttribute) \
    X(cuDeviceTotalMem) \
    X(cuDevicePrimaryCtxRetain) \
    X(cuDevicePrimaryCtxRelease) \
    X(cuCtxSetCurrent) \
    X(cuCtxGetCurrent) \
    X(cuCtxGetDevice) \
    X(cuCtxGetId) \
    X(cuCtxResetPersistingL2Cache) \
    X(cuMemGetInfo) \
    X(cuMemAlloc) \
    X(cuMemAllocManaged) \
    X(cuMemFree) \
    X(cuMemcpyHtoD) \
    X(cuMemcpyHtoDAsync) \
    X(cuMemcpyDtoH) \
    X(cuMemcpyDtoDAsync) \
    X(cuMemcpyDtoHAsync) \
    X(cuMemAllocHost) \
    X(cuMemFreeHost) \
    X(cuMemHostGetDevicePointer) \
    X(cuMemsetD8Async) \
    X(cuMemsetD16Async) \
    X(cuMemsetD32Async) \
    X(cuModuleLoadData) \
    X(cuModuleUnload) \
    X(cuModuleGetFunction) \
    X(cuModuleGetGlobal) \
    X(cuLibraryLoadData) \
    X(cuLibraryUnload) \
    X(cuLibraryGetKernel) \
    X(cuKernelGetFunction) \
    X(cuFuncGetAttribute) \
    X(cuFuncSetAttribute) \
    X(cuFuncGetParamInfo) \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
    X(cuLaunchKernel) \
    X(cuLaunchCooperativeKernel) \
    X(cuStreamCreate) \
    X(cuStreamDestroy) \
    X(cuStreamSynchronize) \
    X(cuStreamQuery) \
    X(cuStreamWaitValue32) \
    X(cuEventCreate) \
    X(cuEventDestroy) \
    X(cuEventRecord) \
    X(cuEventSynchronize) \
    X(cuEventElapsedTime)
// clang-format on

// Member names go through cuda.h's macros as well, so `api.cuMemAlloc` is the _v2 pointer.
struct api {
#define HONE_CUDA_POINTER(fn) decltype(&::fn) fn = nullptr;
    HONE_CUDA_FUNCTIONS(HONE_CUDA_POINTER)
#undef HONE_CUDA_POINTER
};

// The loaded and initialised driver. Throws env_error when there is no usable driver or no
// device; the first failure is remembered and rethrown (dlopen is not retried).
const api& driver();

// Throws cuda_error "<what>: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" unless r is CUDA_SUCCESS.
void check(CUresult r, const char* what);

// One launch of f on `stream`, cooperative (cuLaunchCooperativeKernel: every block resident at
// once, as a grid-wide sync needs) or plain (cuLaunchKernel); launch_call_name says which.
inline CUresult launch(const api& a, CUfunction f, const std::array<uint32_t, 3>& grid,
                       const std::array<uint32_t, 3>& block, uint32_t shared_bytes, CUstream stream,
                       void** params, bool cooperative) {
    return cooperative
               ? a.cuLaunchCooperativeKernel(f, grid[0], grid[1], grid[2], block[0], block[1],
                                             block[2], shared_bytes, stream, params)
               : a.cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                  shared_bytes, stream, params, nullptr);
}
inline const char* launch_call_name(bool cooperative) {
    return cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel";
}

// For a process of hone's own (the GPU worker, `hone tune --in-process`), before CUDA starts:
// one hardware work queue (CUDA_DEVICE_MAX_CONNECTIONS=1) unless the environment asks for more.
// A session queues everything on one stream; the driver's 8 queues cost context creation time
// (H100: 93-121 ms against 45-62 with one, in fresh processes). Never for an application.
void prefer_one_work_queue();

// For a GPU worker, before CUDA starts: this process sees only the GPU `ordinal` names
// (CUDA_VISIBLE_DEVICES narrowed to that entry of its list, or set to the ordinal), and the
// ordinal to open in it is returned (0). The driver's start grows with the GPUs it sees: on a
// 4-GPU H200 host cuInit took 0.75-0.94 s with all visible against 0.17-0.27 s with one
// (bench/probes/init_visible.sh). The ordinal is returned unchanged where the list has no such
// entry (the driver's own error then names it).
int see_only_device(int ordinal);
// The same from the value of CUDA_VISIBLE_DEVICES (null: unset): the value to set, or nullopt
// to leave the environment as it is; for tests.
std::optional<std::string> visible_devices_for(const char* visible, int ordinal);

}  // namespace hone::cu
