// Any text must read as a wisdom file or be refused with an input_error; anything else (a
// crash, a sanitizer report, another exception) is a bug. What is read is written back and read
// again.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hone/error.hpp"
#include "hone/wisdom.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto entries = hone::parse_wisdom(text, "fuzz.json");
        hone::parse_wisdom(hone::format_wisdom(entries, 0), "again.json");
    } catch (const hone::input_error&) {
    }
    return 0;
}
