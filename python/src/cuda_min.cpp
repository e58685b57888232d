#include "cuda_min.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>

#include "hone/error.hpp"

namespace hone::py::cuda {
namespace {

// The driver API's C types, as cuda.h declares them (ABI-stable since CUDA 4).
using CUresult = int;
using CUdevice = int;
constexpr int CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
constexpr int CUDA_ERROR_INVALID_CONTEXT = 201;
constexpr int CUDA_ERROR_INVALID_VALUE = 1;

struct api {
    CUresult (*cuInit)(unsigned) = nullptr;
    CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
    CUresult (*cuCtxGetCurrent)(context*) = nullptr;
    CUresult (*cuCtxGetDevice)(CUdevice*) = nullptr;
    CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
    CUresult (*cuDevicePrimaryCtxRetain)(context*, CUdevice) = nullptr;
    CUresult (*cuCtxPushCurrent)(context) = nullptr;
    CUresult (*cuCtxPopCurrent)(context*) = nullptr;
    CUresult (*cuPointerGetAttribute)(void*, int, uint64_t) = nullptr;
};

api g;
std::once_flag g_once;
std::string g_error;

template <class F>
void sym(void* lib, F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (!f && g_error.empty()) g_error = std::string("the CUDA driver has no ") + name;
}

void load() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        const char* e = dlerror();
        g_error = std::string("cannot load the CUDA driver (libcuda.so.1): ") + (e ? e : "?");
        return;
    }
    sym(lib, g.cuInit, "cuInit");
    sym(lib, g.cuGetErrorString, "cuGetErrorString");
    sym(lib, g.cuCtxGetCurrent, "cuCtxGetCurrent");
    sym(lib, g.cuCtxGetDevice, "cuCtxGetDevice");
    sym(lib, g.cuDeviceGet, "cuDeviceGet");
    sym(lib, g.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    sym(lib, g.cuCtxPushCurrent, "cuCtxPushCurrent_v2");
    sym(lib, g.cuCtxPopCurrent, "cuCtxPopCurrent_v2");
    sym(lib, g.cuPointerGetAttribute, "cuPointerGetAttribute");
    if (g_error.empty()) {
        const CUresult rc = g.cuInit(0);
        if (rc != 0) g_error = "cuInit failed (error " + std::to_string(rc) + "): no usable GPU";
    }
}

void check(CUresult rc, const char* what) {
    if (rc == 0) return;
    const char* text = nullptr;
    if (g.cuGetErrorString) g.cuGetErrorString(rc, &text);
    throw env_error(std::string(what) + ": " + (text ? text : "error " + std::to_string(rc)));
}

}  // namespace

void init() {
    std::call_once(g_once, load);
    if (!g_error.empty()) throw env_error(g_error);
}

int pointer_device(uint64_t address) {
    init();
    int ordinal = -1;
    const CUresult rc =
        g.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, address);
    if (rc == CUDA_ERROR_INVALID_VALUE) return -1;  // host memory the driver does not know
    check(rc, "cuPointerGetAttribute");
    return ordinal;
}

int current_device() {
    init();
    context c = nullptr;
    check(g.cuCtxGetCurrent(&c), "cuCtxGetCurrent");
    if (!c) return -1;
    CUdevice d = -1;
    const CUresult rc = g.cuCtxGetDevice(&d);
    if (rc == CUDA_ERROR_INVALID_CONTEXT) return -1;  // a destroyed context is still current
    check(rc, "cuCtxGetDevice");
    return d;
}

context primary_context(int device) {
    init();
    static std::mutex m;
    static std::map<int, context> retained;
    const std::lock_guard lock(m);
    if (auto it = retained.find(device); it != retained.end()) return it->second;
    CUdevice d = 0;
    check(g.cuDeviceGet(&d, device), "cuDeviceGet");
    context c = nullptr;
    check(g.cuDevicePrimaryCtxRetain(&c, d), "cuDevicePrimaryCtxRetain");
    retained[device] = c;
    return c;
}

void push(context c) {
    check(g.cuCtxPushCurrent(c), "cuCtxPushCurrent");
}

void pop() {
    context c = nullptr;
    check(g.cuCtxPopCurrent(&c), "cuCtxPopCurrent");
}

}  // namespace hone::py::cuda
