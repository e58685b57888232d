// Choosing a configuration for (device, problem sizes) from tuned entries: pure functions over
// a spec and plain data, so that the rule is tested without a GPU and the benchmark replays it
// on databases.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "hone/kernel.hpp"
#include "hone/spec.hpp"
#include "hone/wisdom.hpp"

namespace hone::runtime {

// Problem sizes in the spec's order; device attributes included (expressions may use them).
bindings size_scope(const spec& s, const std::vector<int64_t>& sizes, const device_attrs& dev);
std::string problem_text(const spec& s, const std::vector<int64_t>& sizes);

// A tuned entry's sizes in spec order; nullopt when it names other sizes than the spec.
std::optional<std::vector<int64_t>> entry_sizes(const spec& s, const tuned_entry& e);

// The parameter values of `params` in spec order, when they name exactly the spec's parameters
// with values of its lists and the configuration is valid in `scope`: every constraint holds,
// the launch dimensions and buffer counts evaluate to positive sizes. Otherwise nullopt and
// `why` says what failed.
std::optional<std::vector<value>> valid_config(
    const spec& s, const bindings& scope, const std::vector<std::pair<std::string, value>>& params,
    std::string* why = nullptr);

// "H100" for "NVIDIA H100 80GB HBM3" and "NVIDIA H100 PCIe", "A100" for "NVIDIA A100-SXM4-80GB",
// "4090" for "NVIDIA GeForce RTX 4090": the first word with a digit, vendor words skipped.
std::string name_family(const std::string& device_name);

struct select_inputs {
    const spec& s;
    const std::vector<tuned_entry>& entries;  // this kernel's entries (any device)
    std::string source_hash;                  // kernel_source_hash() of the current source
    std::string spec_hash;                    // the current spec's identity hash ("" = unknown)
    std::string nvrtc_version;                // preferred among duplicates ("" = no preference)
};

// The tiers of kernel.hpp. Throws input_error when no configuration of the space is valid at
// these sizes on this device.
kernel_selection select_config(const select_inputs& in, const device_attrs& dev,
                               const std::vector<int64_t>& sizes);

// The baseline the benchmark compares with (Kernel Launcher's rule): the entry of this device
// whose problem volume (product of sizes) is nearest in log scale, its best configuration that
// is valid at these sizes. nullopt when no entry of this device has one.
std::optional<kernel_selection> select_nearest_volume(const select_inputs& in,
                                                      const device_attrs& dev,
                                                      const std::vector<int64_t>& sizes);

// The fallback tier alone: the verify reference configuration when valid, else the first valid
// configuration in space order. Throws input_error when none is valid.
kernel_selection fallback_config(const spec& s, const device_attrs& dev,
                                 const std::vector<int64_t>& sizes);

}  // namespace hone::runtime
