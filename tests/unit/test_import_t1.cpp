// T1 in: Python list values, the translation of a T1 file into a config, and refusals.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "formats/python_list.hpp"
#include "formats/t1_import.hpp"
#include "hone/spec.hpp"
#include "space/space.hpp"
#include "temp_dir.hpp"

using namespace hone;

namespace {

const source_pos t1_at{"t.T1.json", 9, 27};

std::vector<value> ints(std::initializer_list<int64_t> v) {
    return {v.begin(), v.end()};
}

// A T1 file of my own: every Values form, every constraint form, a kernel with a 2-D problem.
const char* const small_t1 = R"json({
  "General": {"BenchmarkName": "small", "OutputFormat": "JSON"},
  "ConfigurationSpace": {
    "TuningParameters": [
      {"Name": "bx", "Type": "int", "Values": "[16 * i for i in range(1, 5)]", "Default": 16},
      {"Name": "by", "Type": "int", "Values": "[1] + [2 * i for i in range(1, 3)]", "Default": 1},
      {"Name": "tile", "Type": "int", "Values": "list(range(1, 4))", "Default": 1},
      {"Name": "shmem", "Type": "int", "Values": "[0, 1]", "Default": 0},
      {"Name": "unroll", "Type": "int", "Values": [1, 2], "Default": 1}
    ],
    "Conditions": [
      {"Expression": "32 <= bx * by <= 64", "Parameters": ["bx", "by"]},
      {"Expression": "shmem == 0 or not (tile == 3 and bx == 64)", "Parameters": ["shmem", "tile", "bx"]},
      {"Expression": "tile in [1, 2] or unroll == 1", "Parameters": ["tile", "unroll"]},
      {"Expression": "bx // tile >= 16 and (bx * by) / 16 >= 2", "Parameters": ["bx", "tile", "by"]}
    ]
  },
  "KernelSpecification": {
    "Language": "CUDA", "CompilerOptions": ["-std=c++11"], "KernelName": "small_kernel",
    "KernelFile": "small.cu", "GlobalSizeType": "CUDA",
    "LocalSize": {"X": "bx", "Y": "by", "Z": "1"},
    "GridDivX": ["bx", "tile"], "GridDivY": ["by"],
    "ProblemSize": [4096, 2048], "SharedMemory": 0,
    "Arguments": [
      {"Name": "out", "Type": "float", "MemoryType": "Vector", "AccessType": "WriteOnly", "FillType": "Constant",
       "Size": "ProblemSize[0]*ProblemSize[1]", "FillValue": 0.0, "Output": 1},
      {"Name": "in", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadOnly", "FillType": "Random",
       "Size": "(ProblemSize[0] + max(bx)) * ProblemSize[1]", "FillValue": 2.0},
      {"Name": "alpha", "Type": "float", "MemoryType": "Scalar", "AccessType": "ReadOnly", "FillValue": 0.5},
      {"Name": "taps", "Type": "float", "MemoryType": "Vector", "MemType": "Constant", "AccessType": "ReadOnly",
       "FillType": "Constant", "Size": 9, "FillValue": 1.0}
    ]
  }
})json";

// The valid configurations of small_t1 by Python's rules, counted here by hand-written loops
// (the `in` constraint does not translate, so it is left out, as the config leaves it out).
uint64_t small_count() {
    uint64_t n = 0;
    for (int bx : {16, 32, 48, 64})
        for (int by : {1, 2, 4})
            for (int tile : {1, 2, 3})
                for (int shmem : {0, 1})
                    for (int unroll : {1, 2}) {
                        (void)unroll;
                        const bool c1 = 32 <= bx * by && bx * by <= 64;
                        const bool c2 = shmem == 0 || !(tile == 3 && bx == 64);
                        const bool c4 =
                            bx / tile >= 16 && (bx * by) / 16.0 >= 2;  // Python's / is exact
                        n += c1 && c2 && c4;
                    }
    return n;
}

// The shared T1 files, when this checkout sits where they can be found.
std::string shared_spaces() {
    for (const char* rel : {"/../shared/spaces", "/../../shared/spaces"}) {
        const std::string dir = std::string(HONE_SOURCE_DIR) + rel;
        if (std::filesystem::exists(dir + "/gemm_milo.T1.json")) return dir;
    }
    return "";
}

t1_translation translate_file(const std::string& path, const std::string& yaml_path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return translate_t1(text.str(), path, yaml_path);
}

uint64_t count_of(const std::string& yaml, const std::string& yaml_path) {
    const spec s = load_spec_text(yaml, yaml_path, {}, load_options{.require_source = false});
    const search_space space(s, s.problem_bindings());
    REQUIRE(space.count());
    return *space.count();
}

}  // namespace

TEST_CASE("T1 Values: Python lists without Python") {
    CHECK(eval_python_list("[1, 2, 4]", t1_at) == ints({1, 2, 4}));
    CHECK(eval_python_list("[1, 2, 4,]", t1_at) == ints({1, 2, 4}));
    CHECK(eval_python_list("[]", t1_at).empty());
    const auto bx = eval_python_list("[32 * i for i in range(1, 32)]", t1_at);
    REQUIRE(bx.size() == 31);
    CHECK(bx.front() == value(int64_t{32}));
    CHECK(bx.back() == value(int64_t{992}));
    CHECK(eval_python_list("[1] + [2 * i for i in range(1, 11)]", t1_at) ==
          ints({1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20}));
    CHECK(eval_python_list("list(range(0, 10, 3))", t1_at) == ints({0, 3, 6, 9}));
    CHECK(eval_python_list("[x for x in range(5, 0, -2)]", t1_at) == ints({5, 3, 1}));
    CHECK(eval_python_list("[2**i for i in range(5)]", t1_at) == ints({1, 2, 4, 8, 16}));
    CHECK(eval_python_list("[i for i in range(10) if i % 3 == 0]", t1_at) == ints({0, 3, 6, 9}));
    CHECK(eval_python_list("[16 * i for i in [1, 2, 3]]", t1_at) == ints({16, 32, 48}));
    CHECK(eval_python_list("[2 ** (i // 2) for i in range(4)]", t1_at) == ints({1, 1, 2, 2}));
    CHECK(eval_python_list("['a', \"b,c\"]", t1_at) ==
          std::vector<value>{std::string("a"), std::string("b,c")});
    CHECK(eval_python_list("[True, False]", t1_at) == std::vector<value>{true, false});
    CHECK(eval_python_list("[0.5, 1e3]", t1_at) == std::vector<value>{0.5, 1000.0});
    CHECK(eval_python_list("([1] + [2]) + [3]", t1_at) == ints({1, 2, 3}));
}

TEST_CASE("T1 Values that cannot be evaluated are errors at the Values field") {
    for (const char* bad :
         {"[1, 2", "foo", "__import__('os').system('true')", "[1 / 0]", "range(1, 2, 0)",
          "[x for x in range(0, 2000000)]", "[i for i in range(3) if i]",
          "[f(i) for i in range(3)]", "[1] * 3", "{1, 2}", "range(1.5)", "[1, 2] 3"}) {
        INFO(bad);
        try {
            eval_python_list(bad, t1_at);
            FAIL("no error");
        } catch (const input_error& e) {
            CHECK(e.pos().line == 9);
            CHECK(std::string(e.message()).find(bad) != std::string::npos);
        }
    }
}

TEST_CASE("import-t1: a small T1 file of every form, translated and counted") {
    temp_dir dir;
    const std::string yaml_path = dir.file("small.yaml");
    const t1_translation t = translate_t1(small_t1, dir.file("small.T1.json"), yaml_path);
    INFO(t.yaml);
    CHECK(t.benchmark == "small");
    CHECK(t.params == 5);
    CHECK(t.constraints == 4);
    CHECK(t.constraints_translated == 3);
    // Python's `in` has no counterpart: the constraint is left out, and said so.
    CHECK(t.yaml.find("# NOTE: constraint not translated") != std::string::npos);
    CHECK(t.yaml.find("tile in [1, 2] or unroll == 1") != std::string::npos);
    CHECK(t.yaml.find("  bx: [16, 32, 48, 64]\n") != std::string::npos);
    CHECK(t.yaml.find("  by: [1, 2, 4]\n") != std::string::npos);
    CHECK(t.yaml.find("  - \"32 <= bx * by <= 64\"\n") != std::string::npos);
    CHECK(t.yaml.find("grid: [\"ceil_div(problem_size_x, (bx) * (tile))\", "
                      "\"ceil_div(problem_size_y, (by))\", 1]") != std::string::npos);
    CHECK(t.yaml.find("block: [\"bx\", \"by\", 1]") != std::string::npos);
    CHECK(t.yaml.find("in: {type: float, count: \"(problem_size_x + 64) * problem_size_y\"") !=
          std::string::npos);
    CHECK(t.yaml.find("{value: 0.5, type: float}") != std::string::npos);
    // (bx * by) / 16 divides exactly for every value: no note about '/'.
    CHECK(t.yaml.find("uses '/'") == std::string::npos);
    bool source_note = false;
    for (const auto& n : t.notes)
        source_note = source_note || n.find("small.cu was not found") != std::string::npos;
    CHECK(source_note);
    CHECK(count_of(t.yaml, yaml_path) == small_count());
    const spec s = load_spec_text(t.yaml, yaml_path, {}, load_options{.require_source = false});
    CHECK(!s.kernel.source_found);
    CHECK(s.kernel.source_path == dir.file("small.cu"));
    CHECK(s.kernel.options == std::vector<std::string>{"-std=c++11"});
    CHECK(s.args.size() == 4);
    // A Constant argument is passed and fills the module variable of its name, as Kernel
    // Tuner's T1 reader passes it in cmem_args too.
    CHECK(t.yaml.find(
              "taps: {type: float, count: 9, role: in, init: {constant: 1.0}, symbol: taps}") !=
          std::string::npos);
    CHECK(t.yaml.find("args: [out, in, {value: 0.5, type: float}, taps]") != std::string::npos);
    // The same config refuses to load where the source is required.
    CHECK_THROWS_WITH_AS(load_spec_text(t.yaml, yaml_path),
                         doctest::Contains("kernel source 'small.cu' not found"), input_error);
}

TEST_CASE("import-t1: a division that is not exact is noted") {
    std::string text = small_t1;
    const std::string from = "(bx * by) / 16 >= 2";
    text.replace(text.find(from), from.size(), "(bx * by) / 24 >= 2");
    temp_dir dir;
    const t1_translation t = translate_t1(text, dir.file("x.T1.json"), dir.file("x.yaml"));
    CHECK(t.yaml.find("uses '/': Python divides exactly, hone truncates integers") !=
          std::string::npos);
}

TEST_CASE("import-t1: files that are not T1, or lack what T1 requires, are refused") {
    temp_dir dir;
    const std::string y = dir.file("x.yaml");
    auto refused = [&](const std::string& text, const std::string& part) {
        INFO(text);
        try {
            translate_t1(text, "x.T1.json", y);
            FAIL("no error");
        } catch (const input_error& e) {
            INFO(e.what());
            CHECK(std::string(e.what()).find(part) != std::string::npos);
        }
    };
    refused("{\"a\": ", "not valid JSON");
    refused("[1, 2]", "not a T1 file");
    refused("{\"cache\": {}}", "not a T1 file");
    std::string no_params = small_t1;
    no_params.replace(no_params.find("TuningParameters"), 16, "TuningParams");
    refused(no_params, "without \"TuningParameters\" in ConfigurationSpace");
    std::string no_kernel = small_t1;
    no_kernel.replace(no_kernel.find("\"KernelName\""), 12, "\"Name_\"");
    refused(no_kernel, "without \"KernelName\" in KernelSpecification");
    std::string bad_values = small_t1;
    bad_values.replace(bad_values.find("[0, 1]"), 6, "[0, 1");
    refused(bad_values, "cannot evaluate the Values expression '[0, 1'");
    std::string bad_name = small_t1;
    bad_name.replace(bad_name.find("\"shmem\", \"Type\""), 7, "\"sm_count\"");
    refused(bad_name,
            "parameter 'sm_count' cannot be translated: it is the name of a device attribute");
    std::string twice = small_t1;
    twice.replace(twice.find("[0, 1]"), 6, "[0, 0]");
    refused(twice, "parameter 'shmem' lists 0 twice");
}

// The four T1 files of the benchmark hub, when present: the counts are those Kernel Tuner's
// Searchspace gives for the same files. Measured with kernel_tuner 1.5.0 on this project's
// machine, bench/space_vs_kt.py (`python3 bench/space_vs_kt.py --kt-counts`), which builds
// Searchspace(tune_params, restrictions, max_threads=1024) from each file's
// ConfigurationSpace and prints len(searchspace.list).
TEST_CASE("import-t1: the benchmark hub's T1 files count as Kernel Tuner counts them") {
    const std::string spaces = shared_spaces();
    if (spaces.empty()) {
        MESSAGE("../shared/spaces not found beside the source: skipped");
        return;
    }
    temp_dir dir;
    const std::pair<const char*, uint64_t> expected[] = {{"gemm_milo", 116928},
                                                         {"convolution_milo", 4362},
                                                         {"dedispersion_milo", 11130},
                                                         {"pnpoly", 4092}};
    for (const auto& [name, kt_count] : expected) {
        INFO(name);
        const std::string yaml_path = dir.file((std::string(name) + ".yaml").c_str());
        const t1_translation t = translate_file(spaces + "/" + name + ".T1.json", yaml_path);
        CHECK(t.constraints_translated == t.constraints);
        CHECK(count_of(t.yaml, yaml_path) == kt_count);
    }
}
