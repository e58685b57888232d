#include "driver/devices.hpp"

#include <fmt/format.h>

#include "driver/resources.hpp"

namespace hone::cu {
namespace {

int64_t attribute(CUdevice dev, CUdevice_attribute which) {
    int v = 0;
    check(driver().cuDeviceGetAttribute(&v, which, dev), "cuDeviceGetAttribute");
    return v;
}

std::string uuid_text(const CUuuid& u) {
    const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
    return fmt::format(
        "GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-"
        "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
        b[14], b[15]);
}

}  // namespace

device_attrs read_device_attrs(CUdevice dev) {
    device_attrs d;
    char name[256] = {};
    check(driver().cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
    d.name = name;
    d.cc_major = static_cast<int>(attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
    d.cc_minor = static_cast<int>(attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
    d.sm_count = attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    d.max_threads_per_block = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    d.max_threads_per_sm = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    d.max_shared_per_block = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    d.max_shared_per_block_optin =
        attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    d.max_shared_per_sm = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    d.regs_per_block = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    d.regs_per_sm = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    d.l2_bytes = attribute(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    d.warp_size = attribute(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    d.clock_khz = attribute(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    d.mem_clock_khz = attribute(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    d.mem_bus_bits = attribute(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    size_t total = 0;
    check(driver().cuDeviceTotalMem(&total, dev), "cuDeviceTotalMem");
    d.total_mem = static_cast<int64_t>(total);
    return d;
}

device_info read_device_info(int ordinal) {
    const api& a = driver();
    device_info info;
    info.ordinal = ordinal;
    CUdevice dev = 0;
    check(a.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
    info.attrs = read_device_attrs(dev);
    CUuuid uuid{};
    check(a.cuDeviceGetUuid(&uuid, dev), "cuDeviceGetUuid");
    info.uuid = uuid_text(uuid);
    check(a.cuDriverGetVersion(&info.driver_version), "cuDriverGetVersion");
    return info;
}

}  // namespace hone::cu

namespace hone {

std::vector<device_info> list_devices() {
    const cu::api& a = cu::driver();
    int count = 0;
    cu::check(a.cuDeviceGetCount(&count), "cuDeviceGetCount");
    std::vector<device_info> out;
    for (int i = 0; i < count; ++i) {
        device_info info = cu::read_device_info(i);
        // Free memory needs a context; the primary one is shared, so this costs little when
        // the caller goes on to use the device.
        const cu::primary_context ctx(i);
        size_t free = 0, total = 0;
        cu::check(a.cuMemGetInfo(&free, &total), "cuMemGetInfo");
        info.free_mem = static_cast<int64_t>(free);
        out.push_back(std::move(info));
    }
    return out;
}

std::vector<device_info> describe_devices() {
    const cu::api& a = cu::driver();
    int count = 0;
    cu::check(a.cuDeviceGetCount(&count), "cuDeviceGetCount");
    std::vector<device_info> out;
    for (int i = 0; i < count; ++i) out.push_back(cu::read_device_info(i));
    return out;
}

}  // namespace hone
