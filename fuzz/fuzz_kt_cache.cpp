// Any text must read as a Kernel Tuner cache, and convert to records, or be refused with an
// input_error; anything else (a crash, a sanitizer report, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/import.hpp"
#include "formats/kt_cache.hpp"
#include "hone/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const hone::kt_cache c = hone::parse_kt_cache(text, "fuzz.json");
        for (const auto& e : c.entries) c.key(e);
        hone::from_kt_cache(c, "fuzz.json");
    } catch (const hone::input_error&) {
    }
    return 0;
}
