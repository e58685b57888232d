// hone tune's lists: problem sizes (--set N=V1,V2 and lists in the config's problem section),
// one run per combination, and --devices. Every malformed list is an input_error.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "hone/error.hpp"
#include "hone/spec.hpp"
#include "spec/lists.hpp"
#include "temp_dir.hpp"

using namespace hone;

using size_map = std::map<std::string, int64_t>;

TEST_CASE("--set: one value as before, or a list; each combination a run") {
    const auto one = parse_set_lists({"N=4096"});
    REQUIRE(one.size() == 1);
    CHECK(one[0].second == std::vector<int64_t>{4096});
    CHECK(size_runs(one, {}) == std::vector<size_map>{{{"N", 4096}}});
    CHECK(size_runs({}, {}) == std::vector<size_map>{{}});  // the config's own sizes

    const auto lists = parse_set_lists({"N=65536,1048576,16777216", "M=2,4"});
    const auto runs = size_runs(lists, {});
    REQUIRE(runs.size() == 6);
    CHECK(runs[0] == size_map{{"N", 65536}, {"M", 2}});
    CHECK(runs[1] == size_map{{"N", 65536}, {"M", 4}});
    CHECK(runs[5] == size_map{{"N", 16777216}, {"M", 4}});

    // The config's lists join in, unless --set gives that size.
    const std::vector<std::pair<std::string, std::vector<int64_t>>> config = {{"N", {1, 2, 3}},
                                                                              {"K", {7, 8}}};
    CHECK(size_runs({}, config).size() == 6);
    const auto overridden = size_runs(parse_set_lists({"N=5"}), config);
    REQUIRE(overridden.size() == 2);
    CHECK(overridden[0] == size_map{{"N", 5}, {"K", 7}});
    CHECK(overridden[1] == size_map{{"N", 5}, {"K", 8}});
}

TEST_CASE("--set lists: malformed ones are refused") {
    CHECK_THROWS_WITH_AS(parse_set_lists({"N=1,1"}), doctest::Contains("1 is listed twice"),
                         input_error);
    CHECK_THROWS_WITH_AS(parse_set_lists({"N=1,"}),
                         doctest::Contains("expected an integer after ','"), input_error);
    CHECK_THROWS_WITH_AS(parse_set_lists({"N="}),
                         doctest::Contains("expected an integer after '='"), input_error);
    CHECK_THROWS_WITH_AS(parse_set_lists({"N=1,x"}), doctest::Contains("got 'x'"), input_error);
    CHECK_THROWS_WITH_AS(parse_set_lists({"=4"}), doctest::Contains("expected NAME=VALUE"),
                         input_error);
    CHECK_THROWS_WITH_AS(parse_set_lists({"N=1", "N=2"}), doctest::Contains("N is set twice"),
                         input_error);
}

TEST_CASE("--devices: all, or ordinals once each") {
    CHECK_FALSE(parse_devices("all").has_value());
    CHECK(parse_devices("0,1,3").value() == std::vector<int>{0, 1, 3});
    CHECK(parse_devices("2").value() == std::vector<int>{2});
    CHECK_THROWS_WITH_AS(parse_devices(""), doctest::Contains("an empty list of GPUs"),
                         input_error);
    CHECK_THROWS_WITH_AS(parse_devices("0,1,0"), doctest::Contains("GPU 0 is named twice"),
                         input_error);
    CHECK_THROWS_WITH_AS(parse_devices("0,,1"), doctest::Contains("got ''"), input_error);
    CHECK_THROWS_WITH_AS(parse_devices("-1"), doctest::Contains("GPU ordinals"), input_error);
    CHECK_THROWS_WITH_AS(parse_devices("one"), doctest::Contains("got 'one'"), input_error);
}

TEST_CASE("a size list in the config: the first value (or --set's) in the spec, the list kept") {
    temp_dir dir;
    dir.write("k.cu", "extern \"C\" __global__ void k(float* x, long long n) {}\n");
    dir.write("k.yaml",
              "kernel: {source: k.cu, name: k}\n"
              "problem: {N: [65536, 1048576], M: \"N * 2\"}\n"
              "params: {B: [64, 128]}\n"
              "buffers: {x: {type: float, count: M, role: inout}}\n"
              "args: [x, {value: N, type: int64}]\n"
              "launch: {grid: [\"ceil_div(N, B)\"], block: [B]}\n"
              "search: {devices: [1, 0]}\n");
    const spec s = load_spec(dir.file("k.yaml"));
    REQUIRE(s.problem_lists.size() == 1);
    CHECK(s.problem_lists[0].first == "N");
    CHECK(s.problem_lists[0].second == std::vector<int64_t>{65536, 1048576});
    CHECK(s.problem_bindings().at("N") == value(int64_t{65536}));
    CHECK(s.problem_bindings().at("M") == value(int64_t{131072}));  // later sizes follow
    CHECK(s.search.devices == std::vector<int>{1, 0});
    CHECK_FALSE(s.search.all_devices);
    const auto runs = size_runs({}, s.problem_lists);
    REQUIRE(runs.size() == 2);
    const spec second = load_spec(dir.file("k.yaml"), runs[1]);
    CHECK(second.problem_bindings().at("N") == value(int64_t{1048576}));
    CHECK(second.problem_bindings().at("M") == value(int64_t{2097152}));
}

namespace {

struct cli_run {
    int rc = -1;
    std::string err;
};

// hone tune with these arguments on configs/vector_add.yaml; its exit code and stderr.
cli_run tune_cli(const temp_dir& dir, const std::string& args) {
    const std::string err = dir.file("stderr");
    const int status =
        std::system(fmt::format("{} tune {}/configs/vector_add.yaml -o {} {} >/dev/null 2>{}",
                                HONE_BINARY, HONE_SOURCE_DIR, dir.file("r.db"), args, err)
                        .c_str());
    cli_run r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::stringstream s;
    s << std::ifstream(err).rdbuf();
    r.err = s.str();
    return r;
}

}  // namespace

TEST_CASE("hone tune: bad --devices and --set lists exit 2 before any GPU is touched") {
    temp_dir dir;
    const std::pair<const char*, const char*> cases[] = {
        {"--devices ''", "an empty list of GPUs"},
        {"--devices 0,0", "GPU 0 is named twice"},
        {"--devices 0,x", "got 'x'"},
        {"--devices 0,1 --in-process", "--in-process measures on one GPU"},
        {"--devices all --in-process", "--in-process measures on one GPU"},
        {"--set N=4096,4096", "4096 is listed twice"},
        {"--set N=4096,", "expected an integer after ','"},
        {"--set N=4096 --set N=8192", "N is set twice"},
        {"--set N=4096,0", "expected a positive integer"},
    };
    for (const auto& [args, expected] : cases) {
        CAPTURE(args);
        const cli_run r = tune_cli(dir, args);
        CHECK(r.rc == 2);
        CHECK(r.err.find(expected) != std::string::npos);
    }
    // --device and --devices together: the command line's own error.
    CHECK(tune_cli(dir, "--device 0 --devices 1").rc != 0);
}
