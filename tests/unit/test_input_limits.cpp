// The limits on what hone reads (docs/limits.md): nesting depth in every JSON and expression
// reader, the input and inflate caps, numbers out of range, T1 value counts, counts beyond
// 2^64, replay's memory, and the hash lookups that keep import linear.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <zlib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/input_limits.hpp"
#include "formats/json_file.hpp"
#include "formats/kt_cache.hpp"
#include "formats/recorded_space.hpp"
#include "formats/t1_import.hpp"
#include "formats/t4.hpp"
#include "hone/error.hpp"
#include "hone/spec.hpp"
#include "hone/store.hpp"
#include "hone/wisdom.hpp"
#include "space/space.hpp"
#include "temp_dir.hpp"

using namespace hone;

namespace {

std::string nested(int depth, const std::string& inner = "1") {
    return std::string(static_cast<std::size_t>(depth), '[') + inner +
           std::string(static_cast<std::size_t>(depth), ']');
}

std::string cache_with(const std::string& metric) {
    return R"({"device_name": "GPU", "kernel_name": "k", "problem_size": [64],
"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]},
"cache": {"1": {"x": 1, "time": 1.0, "extra": )" +
           metric + R"(},
"2": {"x": 2, "time": 2.0}}})";
}

template <typename F>
std::string input_error_of(F&& f) {
    try {
        f();
    } catch (const input_error& e) {
        return e.what();
    }
    return "no error";
}

std::string error_text_of_kt(const std::string& text) {
    return input_error_of([&] { parse_kt_cache(text, "x.json"); });
}

bool has_part(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// Sets an environment variable for one scope.
struct env_var {
    std::string name;
    env_var(const char* n, const char* value) : name(n) { ::setenv(n, value, 1); }
    ~env_var() { ::unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("json_too_deep finds the first bracket past the limit and skips strings") {
    CHECK(json_too_deep("[[1]]", 2) == std::string_view::npos);
    CHECK(json_too_deep("[[[1]]]", 2) == 2);
    CHECK(json_too_deep(R"(["[[[[", {"a": "{{{{\"[[["}])", 2) == std::string_view::npos);
    CHECK(json_too_deep(R"({"a": [1], "b": [[2]]})", 2) == 17);
    // Unbalanced text (not JSON) is still scanned to its end without harm.
    CHECK(json_too_deep("]]]]", 1) == std::string_view::npos);
}

TEST_CASE("deep JSON is refused at its position by every JSON reader") {
    const std::string deep = nested(100000);
    const std::string kt = error_text_of_kt(cache_with(deep));
    CHECK(has_part(kt, "x.json:3:"));
    CHECK(has_part(kt, "nested more than 512 levels"));
    // Just inside the limit is read (the record's own object and the document take two).
    CHECK_NOTHROW(parse_kt_cache(cache_with(nested(max_json_depth - 3)), "x.json"));

    const std::string t4 =
        R"({"schema_version": "1.0.0", "results": [{"configuration": {"x": )" + deep + "}}]}";
    CHECK(has_part(input_error_of([&] { read_t4_text(t4, "r.json"); }), "r.json:1:"));
    CHECK(has_part(input_error_of([&] { read_t4_text(t4, "r.json"); }), "nested more than"));

    const std::string wisdom = R"({"format": "hone-wisdom", "entries": )" + deep + "}";
    CHECK(has_part(input_error_of([&] { parse_wisdom(wisdom, "w.json"); }), "nested more than"));

    const std::string t1 = R"({"ConfigurationSpace": )" + deep + "}";
    CHECK(has_part(input_error_of([&] { translate_t1(t1, "t.json", "t.yaml"); }),
                   "nested more than"));
}

TEST_CASE("T1 Values and constraints nested deeply are refused, not recursed into") {
    auto t1 = [](const std::string& values, const std::string& condition) {
        return R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Values": ")" +
               values + R"("}], "Conditions": [{"Expression": ")" + condition +
               R"("}]}, "KernelSpecification": {"KernelName": "k", "KernelFile": "k.cu"}})";
    };
    const std::string parens(100000, '(');
    const std::string closes(100000, ')');
    CHECK(has_part(input_error_of([&] {
                       translate_t1(t1(parens + "[1]" + closes, "x > 0"), "t.json", "t.yaml");
                   }),
                   "nested more than 200 deep"));
    // Brackets inside an item are the item's text, which no expression accepts.
    CHECK(has_part(input_error_of([&] {
                       translate_t1(
                           t1(std::string(100000, '[') + "1" + std::string(100000, ']'), "x > 0"),
                           "t.json", "t.yaml");
                   }),
                   "unexpected character '['"));
    const std::string lists = std::string(300, '[') + "1" + std::string(300, ']');
    CHECK(has_part(input_error_of([&] {
                       translate_t1(t1("list(" + lists + ")", "x > 0"), "t.json", "t.yaml");
                   }),
                   "t.json:1:"));
    // A constraint nested too deeply is not translated: a note says why, nothing crashes.
    const t1_translation t =
        translate_t1(t1("[1, 2]", parens + "x > 0" + closes), "t.json", "t.yaml");
    CHECK(t.constraints == 1);
    CHECK(t.constraints_translated == 0);
    bool said = false;
    for (const auto& n : t.notes) said = said || has_part(n, "nested too deeply");
    CHECK(said);
}

TEST_CASE("a number beyond a double's range is an input error at its position") {
    const std::string kt = error_text_of_kt(cache_with("1e400"));
    CHECK(has_part(kt, "x.json:3:"));
    CHECK(has_part(kt, "number overflow"));
    const std::string w = input_error_of(
        [&] { parse_wisdom("{\"format\": \"hone-wisdom\",\n \"x\": -1e999}", "w.json"); });
    CHECK(has_part(w, "w.json:2:7"));
    CHECK(has_part(input_error_of([&] { parse_json("[1, 2e400]", "a.json"); }), "a.json:1:5"));
}

TEST_CASE("input and inflate limits: refused with the limit and how to raise it") {
    temp_dir dir;
    {
        const env_var one("HONE_MAX_INPUT_MIB", "1");
        CHECK(max_input_bytes() == (std::size_t{1} << 20));
        CHECK(max_text_input_bytes() == (std::size_t{1} << 20));
        const std::string zero = input_error_of([] { read_maybe_gzip("/dev/zero"); });
        CHECK(has_part(zero, "/dev/zero"));
        CHECK(has_part(zero, "input limit of 1 MiB"));
        CHECK(has_part(zero, "HONE_MAX_INPUT_MIB"));
        CHECK(has_part(input_error_of([] { load_spec("/dev/zero"); }), "input limit of 1 MiB"));

        // 2 MiB of zeros gzip to a few KiB: the inflated size is what counts.
        const std::string bomb = dir.file("bomb.json.gz");
        gzFile f = gzopen(bomb.c_str(), "wb");
        REQUIRE(f);
        const std::string zeros(std::size_t{2} << 20, '0');
        gzwrite(f, zeros.data(), static_cast<unsigned>(zeros.size()));
        gzclose(f);
        const std::string inflated = input_error_of([&] { read_maybe_gzip(bomb); });
        CHECK(has_part(inflated, "inflates to more than 1 MiB"));
        CHECK(has_part(inflated, "HONE_MAX_INPUT_MIB"));
    }
    CHECK(max_input_bytes() == (std::size_t{1} << 30));
    CHECK(max_text_input_bytes() == (std::size_t{64} << 20));
    {
        const env_var bad("HONE_MAX_INPUT_MIB", "lots");
        CHECK_THROWS_AS(max_input_bytes(), env_error);
    }
    {
        const env_var zero("HONE_MAX_INPUT_MIB", "0");
        CHECK_THROWS_AS(max_input_bytes(), env_error);
    }
    // A file at the limit is read whole.
    dir.write("small.txt", "abc");
    CHECK(*read_file_capped(dir.file("small.txt"), 3) == "abc");
    CHECK_THROWS_AS(read_file_capped(dir.file("small.txt"), 2), input_error);
    CHECK(!read_file_capped(dir.file("absent.txt"), 3).has_value());
}

TEST_CASE("a T1 file listing too many values is refused before the next list is built") {
    const std::string t1 =
        R"x({"ConfigurationSpace": {"TuningParameters": [
{"Name": "a", "Values": "list(range(999999))"}, {"Name": "b", "Values": "list(range(999999))"}]},
"KernelSpecification": {"KernelName": "k", "KernelFile": "k.cu"}})x";
    const std::string e = input_error_of([&] { translate_t1(t1, "t.json", "t.yaml"); });
    CHECK(has_part(e, "t.json:2:"));
    CHECK(has_part(e, "parameter 'a' brings the values of the T1 parameters to 999999"));
}

TEST_CASE("a count beyond 2^64 stays exact in 128 bits, and the space samples") {
    // 21 parameters of 9 values and a constraint that is always true: 9^21 valid.
    std::string params = "params: {";
    for (int i = 0; i < 21; ++i)
        params += fmt::format("{}p{}: [1, 2, 3, 4, 5, 6, 7, 8, 9]", i ? ", " : "", i);
    params += "}";
    const std::string yaml = fmt::format(
        "kernel: {{source: ../kernels_src/vector_add.cu, name: \"vector_add<1, false>\"}}\n"
        "problem: {{N: 1024}}\n{}\n"
        "buffers: {{a: {{type: float, count: N}}, c: {{type: float, count: N, role: out}}}}\n"
        "args: [a, c, {{value: N, type: int64}}]\n"
        "launch: {{grid: [\"ceil_div(N, 64)\"], block: 64}}\n"
        "constraints: [\"p0 + p1 > 0\"]\n",
        params);
    const spec s = load_spec_text(yaml, HONE_SOURCE_DIR "/configs/inline.yaml");
    const search_space space(s, s.problem_bindings());
    CHECK(space.exact_count_text() == "109418989131512359209");
    CHECK(!space.count().has_value());
    CHECK(space.estimated_count() == doctest::Approx(1.09418989131512359209e20));
    CHECK_NOTHROW(space.require_nonempty());
    std::mt19937_64 rng(1);
    CHECK(space.sample(rng).has_value());
}

TEST_CASE("a database row whose parameters nest deeply does not decode: an error, no crash") {
    temp_dir dir;
    const std::string db = dir.file("r.db");
    run_identity id;
    id.config_path = "k.yaml";
    id.kernel_name = "k";
    id.problem = "N=64";
    id.device_name = "GPU";
    id.tool_version = tool_version();
    {
        results_store s(db);
        eval_record r;
        r.key = "x=1";
        r.params = {{"x", int64_t{1}}};
        s.put(s.begin_run(id), r);
    }
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
    const std::string sql =
        fmt::format("UPDATE results SET params = '{{\"x\": {}}}'", nested(100000));
    REQUIRE(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(h);
    results_store s(db);
    try {
        s.query({id.id(), "", 0, false});
        FAIL("expected an error");
    } catch (const env_error& e) {
        CHECK(has_part(e.what(), "nested more than 512 levels"));
    }
}

TEST_CASE("cache records find their values by hash: every value of a long list, 2 == 2.0") {
    std::string values, records;
    for (int i = 0; i < 5000; ++i) {
        values += fmt::format("{}{}", i ? ", " : "", i * 2);
        // Every other record spells its value as a real.
        records += fmt::format("{}\"{}\": {{\"x\": {}{}, \"time\": 1.0}}", i ? ", " : "", i * 2,
                               i * 2, i % 2 ? ".0" : "");
    }
    const std::string text = R"({"device_name": "GPU", "kernel_name": "k",
"tune_params_keys": ["x"], "tune_params": {"x": [)" +
                             values + R"(]}, "cache": {)" + records + "}}";
    const kt_cache c = parse_kt_cache(text, "x.json");
    REQUIRE(c.entries.size() == 5000);
    for (std::size_t i = 0; i < c.entries.size(); ++i) CHECK(c.entries[i].index[0] == i);
    // A value that is not listed is still refused, and so is a boolean for the number 1.
    std::string three = cache_with("1");
    three.replace(three.find("\"x\": 2,"), 7, "\"x\": 3,");
    CHECK(has_part(error_text_of_kt(three), "is not one of the values"));
    std::string boolean = cache_with("1");
    boolean.replace(boolean.find("\"x\": 1,"), 7, "\"x\": true,");
    CHECK(has_part(error_text_of_kt(boolean), "is not one of the values"));
}

TEST_CASE("replay keeps only what is printed unless the history is asked for") {
    temp_dir dir;
    std::string records;
    for (int x = 1; x <= 4; ++x)
        records +=
            fmt::format("{}\"{}\": {{\"x\": {}, \"time\": {}}}", x > 1 ? ", " : "", x, x, 5 - x);
    dir.write("c.json", R"({"device_name": "GPU", "kernel_name": "k", "tune_params_keys": ["x"],
"tune_params": {"x": [1, 2, 3, 4]}, "cache": {)" +
                            records + "}}");
    const recorded_space space = load_recorded_space(dir.file("c.json"));
    replay_options o;
    o.setup.name = "exhaustive";
    o.setup.budget = 10;
    o.seeds = 3;
    const replay_result full = replay(space, o);
    REQUIRE(full.seeds[0].best.size() == 4);
    CHECK(full.seeds[0].evaluations == 4);
    CHECK(*full.seeds[0].final_best == 1.0);
    o.keep_history = false;
    const replay_result lean = replay(space, o);
    CHECK(lean.seeds[0].best.empty());
    CHECK(lean.seeds[0].evaluations == 4);
    CHECK(*lean.seeds[0].final_best == 1.0);
    CHECK(lean.seeds[0].relative_at == full.seeds[0].relative_at);
    CHECK(lean.within_95_at == full.within_95_at);
    CHECK(lean.median_evals_to == full.median_evals_to);
    // Streamed: each seed's history is handed over, then dropped from the result.
    o.keep_history = true;
    std::size_t seen = 0;
    const replay_result streamed = replay(space, o, [&](const replay_seed& s) {
        CHECK(s.best.size() == 4);
        ++seen;
    });
    CHECK(seen == 3);
    CHECK(streamed.seeds[2].best.empty());
    CHECK(streamed.seeds[2].final_best == full.seeds[2].final_best);
}
