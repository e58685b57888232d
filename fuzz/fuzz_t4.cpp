// Any text must read as T4 results or be refused with an input_error; anything else (a crash,
// a sanitizer report, another exception) is a bug. What is read is written back and read again.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/t4.hpp"
#include "hone/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const hone::run_records run = hone::read_t4_text(text, "fuzz.json");
        hone::read_t4_text(hone::write_t4(run), "again.json");
    } catch (const hone::input_error&) {
    }
    return 0;
}
