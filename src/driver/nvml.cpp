#include "driver/nvml.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>

namespace hone::nvml {
namespace {

// NVML's C interface, as far as hone uses it (nvml.h: stable since NVML 2.285).
using nvml_return = int;  // 0 = NVML_SUCCESS
using nvml_device = void*;
struct nvml_memory {  // nvmlMemory_t (v1)
    unsigned long long total, free, used;
};
constexpr int clock_sm = 1;         // NVML_CLOCK_SM
constexpr int temperature_gpu = 0;  // NVML_TEMPERATURE_GPU

struct api {
    nvml_return (*init)() = nullptr;
    nvml_return (*handle_by_uuid)(const char*, nvml_device*) = nullptr;
    nvml_return (*clock_info)(nvml_device, int, unsigned*) = nullptr;
    nvml_return (*temperature)(nvml_device, int, unsigned*) = nullptr;
    nvml_return (*power_usage)(nvml_device, unsigned*) = nullptr;  // milliwatts
    nvml_return (*count)(unsigned*) = nullptr;
    nvml_return (*handle_by_index)(unsigned, nvml_device*) = nullptr;
    nvml_return (*name)(nvml_device, char*, unsigned) = nullptr;
    nvml_return (*memory)(nvml_device, nvml_memory*) = nullptr;
    bool ok = false;
};

template <typename F>
void bind(void* lib, const char* name, F& f) {
    f = reinterpret_cast<F>(dlsym(lib, name));
}

// Loaded once; a process without NVML (no driver, a container without it) gets ok == false.
const api& loaded() {
    static const api a = [] {
        api x;
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) return x;
        bind(lib, "nvmlInit_v2", x.init);
        bind(lib, "nvmlDeviceGetHandleByUUID", x.handle_by_uuid);
        bind(lib, "nvmlDeviceGetClockInfo", x.clock_info);
        bind(lib, "nvmlDeviceGetTemperature", x.temperature);
        bind(lib, "nvmlDeviceGetPowerUsage", x.power_usage);
        bind(lib, "nvmlDeviceGetCount_v2", x.count);
        bind(lib, "nvmlDeviceGetHandleByIndex_v2", x.handle_by_index);
        bind(lib, "nvmlDeviceGetName", x.name);
        bind(lib, "nvmlDeviceGetMemoryInfo", x.memory);
        x.ok = x.init && x.handle_by_uuid && x.init() == 0;
        return x;
    }();
    return a;
}

}  // namespace

int device_count() {
    const api& a = loaded();
    unsigned n = 0;
    if (!a.ok || !a.count || a.count(&n) != 0) return 0;
    return static_cast<int>(n);
}

std::vector<gpu_model> models() {
    const api& a = loaded();
    std::vector<gpu_model> out;
    const int n = device_count();
    if (n <= 0 || !a.handle_by_index || !a.name || !a.memory) return out;
    for (int i = 0; i < n; ++i) {
        nvml_device dev = nullptr;
        char name[96] = {};
        nvml_memory mem{};
        if (a.handle_by_index(static_cast<unsigned>(i), &dev) != 0 ||
            a.name(dev, name, sizeof name) != 0 || a.memory(dev, &mem) != 0)
            return {};
        out.push_back({name, mem.total});
    }
    return out;
}

gpu_telemetry read(const std::string& uuid) {
    gpu_telemetry t;
    const api& a = loaded();
    if (!a.ok || uuid.empty()) return t;
    static std::mutex m;
    static std::map<std::string, nvml_device> handles;
    nvml_device dev = nullptr;
    {
        std::lock_guard lk(m);
        auto it = handles.find(uuid);
        if (it == handles.end()) {
            if (a.handle_by_uuid(uuid.c_str(), &dev) != 0) dev = nullptr;
            it = handles.emplace(uuid, dev).first;
        }
        dev = it->second;
    }
    if (!dev) return t;
    unsigned v = 0;
    if (a.clock_info && a.clock_info(dev, clock_sm, &v) == 0) t.sm_clock_mhz = v;
    if (a.temperature && a.temperature(dev, temperature_gpu, &v) == 0) t.temperature_c = v;
    if (a.power_usage && a.power_usage(dev, &v) == 0) t.power_w = v / 1000.0;
    return t;
}

}  // namespace hone::nvml
