#include "driver/cuda_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "driver/driver.hpp"

namespace hone::cu {
namespace {

#define HONE_STRINGIFY2(x) #x
#define HONE_STRINGIFY(x) HONE_STRINGIFY2(x)

constexpr const char* no_driver_hint =
    "GPU commands need an NVIDIA GPU and driver; `hone check` and `hone space` work without "
    "one, given --arch";

void* open_library() {
    // Only the real driver installs libcuda.so.1. The unversioned name is a fallback for
    // unusual installs; if it finds the toolkit's stub, cuInit reports it below.
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) return lib;
    const std::string first = dlerror();
    lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (lib) return lib;
    throw env_error(fmt::format("no CUDA driver found (libcuda.so.1 could not be loaded: {}): {}",
                                first, no_driver_hint));
}

void resolve(void* lib, api& a) {
#define HONE_CUDA_RESOLVE(fn)                                                  \
    a.fn = reinterpret_cast<decltype(a.fn)>(dlsym(lib, HONE_STRINGIFY(fn)));   \
    if (!a.fn)                                                                 \
        throw env_error(                                                       \
            fmt::format("the CUDA driver is too old: it lacks {} (hone needs " \
                        "CUDA 12.8 or newer)",                                 \
                        HONE_STRINGIFY(fn)));
    HONE_CUDA_FUNCTIONS(HONE_CUDA_RESOLVE)
#undef HONE_CUDA_RESOLVE
}

std::string error_name(const api& a, CUresult r) {
    const char* name = nullptr;
    if (a.cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
    return fmt::format("CUDA error {}", static_cast<int>(r));
}

std::string describe(const api& a, CUresult r) {
    // The stub library cannot name its own error.
    if (r == CUDA_ERROR_STUB_LIBRARY)
        return "CUDA_ERROR_STUB_LIBRARY (the CUDA toolkit's stub libcuda.so was loaded, not the "
               "driver's)";
    const char* text = nullptr;
    if (a.cuGetErrorString(r, &text) != CUDA_SUCCESS || !text) text = "no description";
    return fmt::format("{} ({})", error_name(a, r), text);
}

void initialise(const api& a) {
    const CUresult r = a.cuInit(0);
    int count = 0;
    if (r == CUDA_SUCCESS) {
        const CUresult rc = a.cuDeviceGetCount(&count);
        if (rc != CUDA_SUCCESS)
            throw env_error(fmt::format("cuDeviceGetCount: {}", describe(a, rc)));
        if (count > 0) return;
    }
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_NO_DEVICE)
        throw env_error(fmt::format("no CUDA device found: {}", no_driver_hint));
    // The toolkit's stub library (CUDA_ERROR_STUB_LIBRARY) and broken installs land here.
    throw env_error(fmt::format("no CUDA driver found (cuInit failed: {}): {}", describe(a, r),
                                no_driver_hint));
}

struct loaded {
    api functions;
    std::exception_ptr failure;
};

loaded load() {
    loaded l;
    try {
        // Never closed: the driver stays loaded for the life of the process.
        resolve(open_library(), l.functions);
        initialise(l.functions);
    } catch (const env_error&) {
        l.failure = std::current_exception();
    }
    return l;
}

}  // namespace

const api& driver() {
    static const loaded l = load();  // thread-safe, once
    if (l.failure) std::rethrow_exception(l.failure);
    return l.functions;
}

void prefer_one_work_queue() {
    ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
}

std::optional<std::string> visible_devices_for(const char* visible, int ordinal) {
    if (ordinal < 0) return std::nullopt;
    if (!visible) return std::to_string(ordinal);
    // CUDA reads the list up to its first entry it cannot use; hone takes it entry by entry.
    std::string_view rest = visible;
    for (int i = 0;; ++i) {
        const auto comma = rest.find(',');
        std::string_view entry = rest.substr(0, comma);
        while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
        while (!entry.empty() && entry.back() == ' ') entry.remove_suffix(1);
        if (i == ordinal) {
            if (entry.empty()) return std::nullopt;
            return std::string(entry);
        }
        if (comma == std::string_view::npos) return std::nullopt;
        rest.remove_prefix(comma + 1);
    }
}

int see_only_device(int ordinal) {
    const auto value = visible_devices_for(std::getenv("CUDA_VISIBLE_DEVICES"), ordinal);
    if (!value) return ordinal;
    ::setenv("CUDA_VISIBLE_DEVICES", value->c_str(), 1);
    return 0;
}

void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const api& a = driver();
    throw cuda_error(static_cast<int>(r), error_name(a, r),
                     fmt::format("{}: {}", what, describe(a, r)));
}

}  // namespace hone::cu
