// Builds small configs for spec tests: one section a line, so that line numbers in expected
// errors are easy to read. Line 1 kernel, 2 problem, 3 params, 4 buffers, 5 args, 6 launch;
// `extra` starts at line 7.
#pragma once
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "hone/spec.hpp"

namespace spec_test {

// Inline configs pretend to live in configs/, so "../kernels_src/..." resolves.
inline const std::string config_path = HONE_SOURCE_DIR "/configs/inline.yaml";

inline std::string yaml(const std::map<std::string, std::string>& replace = {},
                        const std::string& extra = "") {
    const std::pair<const char*, const char*> lines[] = {
        {"kernel",
         R"(kernel: {source: ../kernels_src/vector_add.cu, name: "vector_add<{VEC}, false>"})"},
        {"problem", "problem: {N: 1024}"},
        {"params", "params: {VEC: [1, 2, 4], BLOCK: [64, 128]}"},
        {"buffers", "buffers: {a: {type: float, count: N}, c: {type: float, count: N, role: out}}"},
        {"args", "args: [a, c, {value: N, type: int64}]"},
        {"launch", R"y(launch: {grid: ["ceil_div(N, BLOCK)"], block: BLOCK})y"},
    };
    std::string out;
    for (const auto& [key, line] : lines) {
        const auto it = replace.find(key);
        out += (it == replace.end() ? std::string(line) : it->second) + "\n";
    }
    return out + extra;
}

inline hone::spec load(const std::string& text,
                       const std::map<std::string, int64_t>& overrides = {}) {
    return hone::load_spec_text(text, config_path, overrides);
}

// Loading `text` fails at line:column with a message containing `part`.
inline void check_error(const std::string& text, int line, int column, const std::string& part,
                        const std::map<std::string, int64_t>& overrides = {}) {
    INFO("config:\n", text);
    try {
        load(text, overrides);
        FAIL("loaded without error; expected: ", part);
    } catch (const hone::input_error& e) {
        INFO("error: ", e.what());
        CHECK(e.message().find(part) != std::string::npos);
        CHECK(e.pos().line == line);
        CHECK(e.pos().column == column);
    }
}

}  // namespace spec_test
