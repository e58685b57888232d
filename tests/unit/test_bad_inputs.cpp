// The bad-input corpus (tests/bad_inputs/*.yaml), read as `hone check` reads it: load, build
// the space, require a configuration, evaluate launch sizes per configuration. Line 1 of each
// file is "# expect: <message part>", line 2 "# at: <line>:<column>".
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "hone/spec.hpp"
#include "space/space.hpp"

using namespace hone;

namespace {

// Attributes of an H100 SXM, as `hone check --arch sm_90` assumes.
bindings h100_base(const spec& s) {
    bindings b = s.problem_bindings();
    const std::pair<const char*, int64_t> attrs[] = {{"sm_count", 132},
                                                     {"max_threads_per_block", 1024},
                                                     {"max_threads_per_sm", 2048},
                                                     {"max_shared_per_block", 49152},
                                                     {"max_shared_per_block_optin", 232448},
                                                     {"max_shared_per_sm", 233472},
                                                     {"regs_per_block", 65536},
                                                     {"regs_per_sm", 65536},
                                                     {"l2_bytes", 52428800},
                                                     {"warp_size", 32},
                                                     {"cc_major", 9},
                                                     {"cc_minor", 0},
                                                     {"total_mem", 85520809984}};
    for (const auto& [name, v] : attrs) b[name] = v;
    b["arch"] = std::string("sm_90");
    return b;
}

// Launch sizes that use parameters are known per configuration only.
void check_launch_dims(const spec& s, const search_space& space) {
    for (uint64_t k = 0; k < space.count().value_or(0); ++k) {
        const bindings scope = space.to_config(space.at(k)).scope(s, space.base());
        for (std::size_t i = 0; i < s.launch.grid.size(); ++i) {
            const int64_t v = s.launch.grid[i].eval_int(scope);
            if (v <= 0 || v > std::numeric_limits<int32_t>::max())
                throw input_error(s.launch.grid[i].pos(), fmt::format("grid[{}] = {}", i, v));
        }
    }
}

void run_check(const std::string& path) {
    const spec s = load_spec(path);
    const search_space space(s, h100_base(s));
    space.require_nonempty();
    check_launch_dims(s, space);
}

std::string header(std::ifstream& in, const std::string& prefix) {
    std::string line;
    std::getline(in, line);
    REQUIRE(line.rfind(prefix, 0) == 0);
    return line.substr(prefix.size());
}

}  // namespace

TEST_CASE("every bad input is refused with its message at its position") {
    int files = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(HONE_SOURCE_DIR "/tests/bad_inputs")) {
        const std::string path = entry.path().string();
        std::ifstream in(path);
        const std::string expect = header(in, "# expect: ");
        const std::string at = header(in, "# at: ");
        ++files;
        INFO(path);
        try {
            run_check(path);
            FAIL("accepted");
        } catch (const input_error& e) {
            INFO(e.what());
            CHECK(e.message().find(expect) != std::string::npos);
            CHECK(fmt::format("{}:{}", e.pos().line, e.pos().column) == at);
            CHECK(e.pos().file == path);
        }
    }
    CHECK(files >= 20);
}
