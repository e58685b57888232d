// Any text must load or be refused with an input_error; anything else (a crash, a sanitizer
// report, another exception) is a bug. Configs that load also get their search space built.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hone/spec.hpp"
#include "space/space.hpp"

namespace {

// Larger spaces are valid but slow to enumerate; the fuzzer looks for bugs, not patience.
constexpr uint64_t max_space = 20000;

bool small_space(const hone::spec& s) {
    uint64_t total = 1;
    for (const auto& p : s.params) {
        total *= p.values.size();
        if (total > max_space) return false;
    }
    return true;
}

void build_space(const hone::spec& s) {
    hone::bindings base = s.problem_bindings();
    base["sm_count"] = int64_t{132};
    base["max_threads_per_block"] = int64_t{1024};
    base["warp_size"] = int64_t{32};
    const hone::search_space space(s, base);
    space.require_nonempty();
    for (uint64_t i = 0; i < space.count().value_or(0); ++i) space.to_config(space.at(i)).key(s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        // Inside configs/, so that seeds' relative kernel paths resolve.
        const hone::spec s = hone::load_spec_text(text, HONE_SOURCE_DIR "/configs/fuzz.yaml");
        if (small_space(s)) build_space(s);
    } catch (const hone::input_error&) {
    }
    return 0;
}
