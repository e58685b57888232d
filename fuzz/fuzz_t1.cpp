// Any text must translate from T1 into a config that loads, or be refused with an input_error;
// anything else (a crash, a sanitizer report, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/t1_import.hpp"
#include "hone/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        // Inside configs/, so that a seed's kernel file may resolve.
        hone::translate_t1(text, HONE_SOURCE_DIR "/configs/fuzz_t1.json",
                           HONE_SOURCE_DIR "/configs/fuzz_t1.yaml");
    } catch (const hone::input_error&) {
    }
    return 0;
}
