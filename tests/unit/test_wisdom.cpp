// Wisdom files: written, read back equal; every bad input refused with where and what was
// expected; a results database read as tuned entries; `hone export --wisdom` and its errors.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "hone/error.hpp"
#include "hone/wisdom.hpp"
#include "runtime_test_util.hpp"
#include "temp_dir.hpp"

using namespace hone;
using namespace rt_test;

namespace {

std::vector<tuned_entry> sample_entries() {
    const spec s = load_synthetic(spec_1d());
    std::vector<tuned_entry> out = {
        entry(s, "NVIDIA H100 80GB HBM3", {{"N", 4096}},
              {{va(128, 4), 1.0}, {va(64, 2), 1.25}, {va(256, 1), 2.5}}),
        entry(s, "NVIDIA H100 80GB HBM3", {{"N", 1024}}, {{va(64, 2), 1.0}, {va(64, 1), 1.5}}),
    };
    out[0].configs[0].params.emplace_back("NAME", std::string("say \"hi\""));  // escaping
    out[0].configs[0].params.emplace_back("SCALE", 2.0);                       // stays a real
    out[0].configs[0].params.emplace_back("FAST", true);
    out[0].objective = "gbps";
    out[0].origin = "kernel_tuner 1.0 (x.json)";
    return out;
}

void check_error(const std::string& text, const std::string& part, int line = 0, int column = 0) {
    INFO("text: ", text);
    try {
        parse_wisdom(text, "w.json");
        FAIL("accepted; expected: ", part);
    } catch (const input_error& e) {
        INFO("error: ", e.what());
        CHECK(e.message().find(part) != std::string::npos);
        CHECK(e.pos().file == "w.json");
        CHECK(e.pos().line == line);
        CHECK(e.pos().column == column);
    }
}

// A valid wisdom text whose first entry has `field` replaced by `json` (or removed when empty).
std::string with_field(const std::string& field, const std::string& json) {
    std::string text = format_wisdom(sample_entries());
    const std::string key = "\"" + field + "\": ";
    const std::size_t at = text.find(key);
    REQUIRE(at != std::string::npos);
    const std::size_t end = text.find(",\n", at);
    if (json.empty()) return text.erase(at, end + 2 - at);
    return text.replace(at + key.size(), end - at - key.size(), json);
}

}  // namespace

TEST_CASE("wisdom: write, read back equal; sorted, one configuration a line") {
    const std::vector<tuned_entry> in = sample_entries();
    const std::string text = format_wisdom(in);
    const std::vector<tuned_entry> out = parse_wisdom(text, "w.json");
    REQUIRE(out.size() == 2);
    // Sorted by problem: N=1024 first.
    CHECK(out[0].problem_text() == "N=1024");
    const tuned_entry& a = in[0];
    const tuned_entry& b = out[1];
    CHECK(b.kernel == a.kernel);
    CHECK(b.config == a.config);
    CHECK(b.source_hash == a.source_hash);
    CHECK(b.spec_hash == a.spec_hash);
    CHECK(b.device_name == a.device_name);
    CHECK(b.device_uuid == a.device_uuid);
    CHECK(b.arch == a.arch);
    CHECK(b.driver_version == a.driver_version);
    CHECK(b.nvrtc_version == a.nvrtc_version);
    CHECK(b.tool_version == a.tool_version);
    CHECK(b.origin == a.origin);
    CHECK(b.problem == a.problem);
    CHECK(b.objective == "gbps");
    CHECK(b.tuned_at == a.tuned_at);
    CHECK(b.ranked == 3);
    REQUIRE(b.configs.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(b.configs[i].params == a.configs[i].params);
        CHECK(b.configs[i].time_us == doctest::Approx(a.configs[i].time_us));
        CHECK(b.configs[i].rel == doctest::Approx(a.configs[i].rel));
    }
    CHECK(std::holds_alternative<double>(b.configs[0].params[3].second));
    // Each configuration on one line of its own.
    CHECK(text.find("\"runners_up\": [\n        {\"params\": {\"BLOCK\": 64, \"VEC\": 2}, ") !=
          std::string::npos);
    // Writing what was read gives the same text.
    CHECK(format_wisdom(out) == text);

    SUBCASE("--top keeps the best few; `ranked` still says how many there were") {
        const auto kept = parse_wisdom(format_wisdom(in, 2), "w.json");
        CHECK(kept[1].configs.size() == 2);
        CHECK(kept[1].ranked == 3);
    }
    SUBCASE("written atomically to a file and read through read_tuned") {
        temp_dir t;
        write_wisdom(t.file("w.json"), in);
        CHECK(slurp(t.file("w.json")) == text);
        CHECK(read_tuned(t.file("w.json")).size() == 2);
        CHECK(std::distance(std::filesystem::directory_iterator(t.path), {}) ==
              1);  // no temporary left
    }
}

TEST_CASE("wisdom: JSON syntax errors name the line and column") {
    check_error("{\n  \"format\": \"hone-wisdom\",\n  \"version\": 1,\n  \"entries\": [,]\n}\n",
                "not valid JSON", 4, 15);
    check_error("", "not valid JSON", 1, 1);
    check_error("{\"format\": \"hone-wisdom\"", "not valid JSON", 1, 25);
}

TEST_CASE("wisdom: a file of another tool or version") {
    check_error("[1, 2]", "not a hone wisdom file");
    check_error(R"({"device_name": "A100", "kernel_name": "gemm", "cache": {}})",
                "not a hone wisdom file");
    check_error(R"({"format": "t4-results"})", "\"t4-results\" is not a hone wisdom file");
    check_error(R"({"format": "hone-wisdom"})", "missing \"version\"");
    check_error(R"({"format": "hone-wisdom", "version": 2, "entries": []})",
                "wisdom version 2; this hone");
    check_error(R"({"format": "hone-wisdom", "version": "1", "entries": []})",
                "version: expected an integer");
    check_error(R"({"format": "hone-wisdom", "version": 1})", "missing \"entries\"");
    check_error(R"({"format": "hone-wisdom", "version": 1, "entries": {}})",
                "entries: expected an array");
    CHECK(parse_wisdom(R"({"format": "hone-wisdom", "version": 1, "entries": []})", "w.json")
              .empty());
}

TEST_CASE("wisdom: damaged entries say which field and what was expected") {
    check_error(with_field("kernel", "3"), "entries[0].kernel: expected a string, got a number");
    check_error(with_field("kernel", ""), "entries[0]: missing \"kernel\"");
    check_error(with_field("problem", "{\"N\": 1.5}"), "entries[0].problem.N: expected an integer");
    check_error(with_field("problem", "[]"),
                "entries[0].problem: expected an object, got an array");
    check_error(with_field("device", "{\"arch\": \"sm_90\"}"),
                "entries[0].device: missing \"name\"");
    check_error(with_field("source_hash", ""), "entries[0]: missing \"source_hash\"");
    check_error(with_field("objective", "\"speed\""),
                "entries[0].objective: expected time, gbps or gflops");
    check_error(with_field("ranked", "1"),
                "entries[0].ranked: 1 is fewer than the 2 configurations listed");
    check_error(with_field("best", "{\"params\": {}, \"time_us\": 1, \"value\": 1}"),
                "entries[0].best.params: expected at least one parameter");
    check_error(with_field("best", "{\"params\": {\"A\": [1]}, \"time_us\": 1, \"value\": 1}"),
                "entries[0].best.params.A: expected a number, boolean or string, got an array");
    check_error(with_field("best", "{\"params\": {\"A\": 1}, \"time_us\": -1, \"value\": 1}"),
                "entries[0].best.time_us: expected a positive number, got -1");
    check_error(with_field("best", "{\"params\": {\"A\": 1}, \"value\": 1}"),
                "entries[0].best: missing \"time_us\"");
    check_error(with_field("best", "7"), "entries[0].best: expected an object, got a number");
    std::string text = format_wisdom(sample_entries());
    const std::size_t rel = text.find("\"rel\": 1.25");
    REQUIRE(rel != std::string::npos);
    check_error(text.replace(rel, 11, "\"rel\": 0.5"),
                "entries[1].runners_up[0].rel: expected >= 1");
}

TEST_CASE("read_tuned: a missing path, a folder, a database, a foreign database") {
    temp_dir t;
    CHECK_THROWS_WITH_AS(read_tuned(t.file("none.json")), doctest::Contains("no such file"),
                         input_error);
    CHECK_THROWS_WITH_AS(read_tuned(t.path.string()), doctest::Contains("is a folder"),
                         input_error);
    {
        std::ofstream(t.file("other.db"), std::ios::binary)
            << std::string("SQLite format 3\0", 16) << std::string(4080, '\0');
    }
    CHECK_THROWS_AS(read_tuned(t.file("other.db")), env_error);  // the store's refusal
    t.write("text.txt", "hello");
    CHECK_THROWS_WITH_AS(read_tuned(t.file("text.txt")), doctest::Contains("not valid JSON"),
                         input_error);
}

TEST_CASE("a results database as tuned entries: every ranked configuration, relative to the best") {
    temp_dir t;
    const spec s = load_synthetic(spec_1d());
    {
        results_store db(t.file("r.db"));
        add_run(db, s, "NVIDIA H100 80GB HBM3", "N=1024",
                {{va(64, 1), 20.0}, {va(128, 2), 10.0}, {va(256, 4), -1}, {va(64, 2), 12.5}});
        add_run(db, s, "NVIDIA H100 80GB HBM3", "N=4096",
                {{va(256, 4), -1}});  // nothing ranked: left out
        add_run(db, s, "NVIDIA H100 PCIe", "N=4096", {{va(64, 1), 8.0}, {va(128, 2), 4.0}}, "gbps");
    }
    const std::vector<tuned_entry> e = read_tuned(t.file("r.db"));
    REQUIRE(e.size() == 2);
    const tuned_entry& a = e[0].problem_text() == "N=1024" ? e[0] : e[1];
    const tuned_entry& b = e[0].problem_text() == "N=1024" ? e[1] : e[0];
    CHECK(a.kernel == s.kernel.name);
    CHECK(a.source_hash == kernel_source_hash(s));
    CHECK(a.objective == "time");
    REQUIRE(a.configs.size() == 3);  // the wrong_result is not ranked
    CHECK(a.ranked == 3);
    CHECK(params_key(a.configs[0].params) == "BLOCK=128,VEC=2");
    CHECK(a.configs[1].rel == doctest::Approx(1.25));
    CHECK(a.configs[2].rel == doctest::Approx(2.0));
    CHECK(a.configs[2].objective == doctest::Approx(20.0));
    CHECK_FALSE(a.tuned_at.empty());
    // Ranked by GB/s: 1000/4 = 250 GB/s best, 125 relative 2.
    CHECK(b.objective == "gbps");
    CHECK(params_key(b.configs[0].params) == "BLOCK=128,VEC=2");
    CHECK(b.configs[0].objective == doctest::Approx(250.0));
    CHECK(b.configs[1].rel == doctest::Approx(2.0));
}

TEST_CASE("hone export --wisdom: writes, merges, and refuses what it must not overwrite") {
    temp_dir t;
    const spec s = load_synthetic(spec_1d());
    {
        results_store db(t.file("r.db"));
        add_run(db, s, "NVIDIA H100 80GB HBM3", "N=1024", {{va(64, 1), 20.0}, {va(128, 2), 10.0}});
        results_store other(t.file("o.db"));
        add_run(other, s, "NVIDIA H100 80GB HBM3", "N=8192", {{va(64, 1), 20.0}});
        results_store empty(t.file("empty.db"));
    }
    const std::string w = t.file("w.json");
    cli_output r = hone_cli(fmt::format("export {} --wisdom {}", t.file("r.db"), w));
    CHECK(r.rc == 0);
    CHECK(r.output.find("1 entries (1 kernel, 1 device)") != std::string::npos);
    CHECK(read_tuned(w).size() == 1);
    r = hone_cli(fmt::format("export {} --wisdom {} --merge", t.file("o.db"), w));
    CHECK(r.rc == 0);
    CHECK(r.output.find("1 kept from the file") != std::string::npos);
    CHECK(read_tuned(w).size() == 2);
    r = hone_cli(fmt::format("export {} --wisdom {}", t.file("o.db"), w));  // no --merge: replaced
    CHECK(read_tuned(w).size() == 1);
    r = hone_cli(fmt::format("export {} --wisdom {} --top 1", t.file("r.db"), w));
    CHECK(read_tuned(w)[0].configs.size() == 1);

    SUBCASE("argument errors: exit 2") {
        CHECK(hone_cli("export").rc == 2);
        r = hone_cli(fmt::format("export {} --wisdom {}", t.file("missing.db"), w));
        CHECK(r.rc == 2);  // like every command given an input that is not there
        CHECK(r.output.find("no such results database") != std::string::npos);
        r = hone_cli(fmt::format("export {}", t.file("r.db")));
        CHECK(r.rc == 2);
        CHECK(
            r.output.find("choose what to write: --format t4, kt-cache or csv, or --wisdom FILE") !=
            std::string::npos);
        CHECK(hone_cli(fmt::format("export {} --wisdom {} --format csv", t.file("r.db"), w)).rc ==
              2);
        CHECK(hone_cli(fmt::format("export {} --wisdom {} --top -1", t.file("r.db"), w)).rc == 2);
        CHECK(hone_cli(fmt::format("export {} --wisdom {} --bogus", t.file("r.db"), w)).rc == 2);
    }
    SUBCASE("a file that is not wisdom is left unchanged: exit 2") {
        t.write("notes.txt", "my notes");
        r = hone_cli(fmt::format("export {} --wisdom {}", t.file("r.db"), t.file("notes.txt")));
        CHECK(r.rc == 2);
        CHECK(r.output.find("not a hone wisdom file: it was left unchanged") != std::string::npos);
        CHECK(slurp(t.file("notes.txt")) == "my notes");
        const std::string before = slurp(t.file("o.db"));
        r = hone_cli(fmt::format("export {} --wisdom {}", t.file("r.db"), t.file("o.db")));
        CHECK(r.rc == 2);
        CHECK(r.output.find("is a database (SQLite)") != std::string::npos);
        CHECK(slurp(t.file("o.db")) == before);
    }
    SUBCASE("a database with nothing ranked: bad input, exit 2") {
        r = hone_cli(fmt::format("export {} --wisdom {}", t.file("empty.db"), t.file("e.json")));
        CHECK(r.rc == 2);
        CHECK(r.output.find("nothing to export") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(t.file("e.json")));
    }
    SUBCASE("a foreign file as the database: bad input, exit 2") {
        t.write("fake.db", "not sqlite at all");
        r = hone_cli(fmt::format("export {} --wisdom {}", t.file("fake.db"), t.file("f.json")));
        CHECK(r.rc == 2);
        CHECK(r.output.find("not a hone results database") != std::string::npos);
    }
}
