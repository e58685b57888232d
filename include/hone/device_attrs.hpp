// Device attributes that expressions can use (sm_count, warp_size, ...).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "hone/value.hpp"

namespace hone {

struct device_attrs {
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int64_t sm_count = 0;
    int64_t max_threads_per_block = 1024;
    int64_t max_threads_per_sm = 2048;
    int64_t max_shared_per_block = 49152;  // without opt-in
    int64_t max_shared_per_block_optin =
        49152;  // with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    int64_t max_shared_per_sm = 0;
    int64_t regs_per_block = 65536;
    int64_t regs_per_sm = 65536;
    int64_t l2_bytes = 0;
    int64_t warp_size = 32;
    int64_t total_mem = 0;
    int64_t clock_khz = 0, mem_clock_khz = 0, mem_bus_bits = 0;

    std::string arch() const;        // "sm_90"
    void add_to(bindings& b) const;  // names listed in docs (sm_count, cc_major, arch, ...)
};

// Attributes for compiling without a GPU (`hone check --arch sm_90`): the table holds the
// values of a typical part of that architecture (sm_90: H100 SXM). An architecture the table
// lacks (sm_87, sm_103, sm_121) takes the figures of the closest part below it, its name saying
// so; an arch-specific suffix (sm_90a, sm_100f) those of its base. Not sm_XY[a|f] -> nullopt.
std::optional<device_attrs> nominal_device(const std::string& arch);

}  // namespace hone
