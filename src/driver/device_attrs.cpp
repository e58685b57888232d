#include "hone/device_attrs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace hone {
namespace {

constexpr int64_t kib = 1024, mib = 1024 * kib, gib = 1024 * mib;

// One representative part per architecture, as the driver reports it.
struct nominal_part {
    const char* arch;
    const char* name;
    int cc_major, cc_minor;
    int64_t sm_count, threads_per_sm, shared_optin, shared_per_sm, l2, mem;
    int64_t clock_khz, mem_clock_khz, bus_bits;
};

constexpr std::array<nominal_part, 8> parts{{
    {"sm_70", "Tesla V100-SXM2-32GB", 7, 0, 80, 2048, 96 * kib, 96 * kib, 6 * mib, 32 * gib,
     1530000, 877000, 4096},
    {"sm_75", "Tesla T4", 7, 5, 40, 1024, 64 * kib, 64 * kib, 4 * mib, 15 * gib, 1590000, 5001000,
     256},
    {"sm_80", "NVIDIA A100-SXM4-80GB", 8, 0, 108, 2048, 163 * kib, 164 * kib, 40 * mib, 80 * gib,
     1410000, 1593000, 5120},
    {"sm_86", "NVIDIA GeForce RTX 3090", 8, 6, 82, 1536, 99 * kib, 100 * kib, 6 * mib, 24 * gib,
     1695000, 9751000, 384},
    {"sm_89", "NVIDIA L40S", 8, 9, 142, 1536, 99 * kib, 100 * kib, 96 * mib, 45 * gib, 2520000,
     9001000, 384},
    {"sm_90", "NVIDIA H100 80GB HBM3", 9, 0, 132, 2048, 227 * kib, 228 * kib, 50 * mib, 80 * gib,
     1980000, 2619000, 5120},
    {"sm_100", "NVIDIA B200", 10, 0, 148, 2048, 227 * kib, 228 * kib, 126 * mib, 178 * gib, 1965000,
     3996000, 8192},
    {"sm_120", "NVIDIA GeForce RTX 5090", 12, 0, 170, 1536, 99 * kib, 100 * kib, 96 * mib, 32 * gib,
     2407000, 14001000, 512},
}};

}  // namespace

std::string device_attrs::arch() const {
    return fmt::format("sm_{}{}", cc_major, cc_minor);
}

void device_attrs::add_to(bindings& b) const {
    b["arch"] = arch();
    b["sm_count"] = sm_count;
    b["max_threads_per_block"] = max_threads_per_block;
    b["max_threads_per_sm"] = max_threads_per_sm;
    b["max_shared_per_block"] = max_shared_per_block;
    b["max_shared_per_block_optin"] = max_shared_per_block_optin;
    b["max_shared_per_sm"] = max_shared_per_sm;
    b["regs_per_block"] = regs_per_block;
    b["regs_per_sm"] = regs_per_sm;
    b["l2_bytes"] = l2_bytes;
    b["warp_size"] = warp_size;
    b["cc_major"] = static_cast<int64_t>(cc_major);
    b["cc_minor"] = static_cast<int64_t>(cc_minor);
    b["total_mem"] = total_mem;
}

std::optional<device_attrs> nominal_device(const std::string& arch) {
    // sm_<major><minor digit>[a|f]
    std::string digits = arch.starts_with("sm_") ? arch.substr(3) : "";
    if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.pop_back();
    if (digits.size() < 2 || digits.size() > 3 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    const int want = std::stoi(digits);  // 10 * major + minor
    const nominal_part* best = nullptr;
    for (const auto& p : parts) {
        const int cc = 10 * p.cc_major + p.cc_minor;
        if (cc <= want && (!best || cc > 10 * best->cc_major + best->cc_minor)) best = &p;
    }
    if (!best) return std::nullopt;
    const nominal_part& p = *best;
    device_attrs d;
    d.name = 10 * p.cc_major + p.cc_minor == want
                 ? fmt::format("{} (nominal)", p.name)
                 : fmt::format("sm_{} (nominal: the figures of {}, {})", want, p.name, p.arch);
    d.cc_major = want / 10;
    d.cc_minor = want % 10;
    d.sm_count = p.sm_count;
    d.max_threads_per_sm = p.threads_per_sm;
    d.max_shared_per_block_optin = p.shared_optin;
    d.max_shared_per_sm = p.shared_per_sm;
    d.l2_bytes = p.l2;
    d.total_mem = p.mem;
    d.clock_khz = p.clock_khz;
    d.mem_clock_khz = p.mem_clock_khz;
    d.mem_bus_bits = p.bus_bits;
    return d;  // the other fields' defaults hold for every listed part
}

}  // namespace hone
