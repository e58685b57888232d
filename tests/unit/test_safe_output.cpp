// Writing outputs safely (formats/output_file.hpp), text for the terminal
// (common/terminal_text.hpp) and CSV cells for spreadsheets (formats/csv.hpp).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/terminal_text.hpp"
#include "formats/csv.hpp"
#include "formats/output_file.hpp"
#include "hone/error.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace hone;
namespace fs = std::filesystem;

namespace {

// The message of the input_error `f` throws ("" when it throws none).
template <typename F>
std::string refusal(F&& f) {
    try {
        f();
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

// A T1 file of one parameter.
const char* small_t1 = R"({"ConfigurationSpace": {"TuningParameters":
    [{"Name": "bx", "Type": "int", "Values": "[32, 64]", "Default": 32}], "Conditions": []},
  "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
    "GlobalSizeType": "CUDA", "LocalSize": {"X": "bx", "Y": "1", "Z": "1"},
    "GridDivX": ["bx"], "ProblemSize": [4096], "Arguments": [{"Name": "out", "Type": "float",
    "MemoryType": "Vector", "AccessType": "WriteOnly", "FillType": "Constant", "Size": 4096,
    "FillValue": 0.0, "Output": 1}]}})";

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("check_output_path: a regular file or nothing yet; never a device, fifo or folder") {
    temp_dir t;
    CHECK(refusal([&] { check_output_path(t.file("new.csv")); }).empty());
    t.write("old.csv", "old");
    CHECK(refusal([&] { check_output_path(t.file("old.csv")); }).empty());
    CHECK(contains(refusal([] { check_output_path("/dev/null"); }), "is a character device"));
    REQUIRE(::mkfifo(t.file("fifo").c_str(), 0600) == 0);
    CHECK(contains(refusal([&] { check_output_path(t.file("fifo")); }), "is a fifo"));
    CHECK(contains(refusal([&] { check_output_path(t.path.string()); }), "is a folder"));
    // A link to a device is the device.
    fs::create_symlink("/dev/null", t.path / "null_link");
    CHECK(contains(refusal([&] { check_output_path(t.file("null_link")); }), "character device"));
}

TEST_CASE("check_output_path: the output is never an input, by any name") {
    temp_dir t;
    t.write("in.db", "data");
    t.write("other.db", "data");
    fs::create_hard_link(t.path / "in.db", t.path / "hard.db");
    fs::create_symlink(t.path / "in.db", t.path / "soft.db");
    const std::vector<std::string> inputs{t.file("other.db"), t.file("in.db")};
    for (const char* name : {"in.db", "hard.db", "soft.db"}) {
        CAPTURE(name);
        const std::string why = refusal([&] { check_output_path(t.file(name), inputs); });
        CHECK(contains(why, fmt::format("is the input {}", t.file("in.db"))));
    }
    // ./in.db and a path through the folder name the same file too.
    const std::string roundabout = (t.path / ".." / t.path.filename() / "in.db").string();
    CHECK(contains(refusal([&] { check_output_path(roundabout, inputs); }), "is the input"));
    // Same content, another file: fine.
    t.write("copy.db", "data");
    CHECK(refusal([&] { check_output_path(t.file("copy.db"), inputs); }).empty());
}

TEST_CASE("write_file_atomically: replaces a regular file whole and keeps its mode") {
    temp_dir t;
    write_file_atomically(t.file("a.txt"), "first");
    CHECK(slurp(t.file("a.txt")) == "first");
    REQUIRE(::chmod(t.file("a.txt").c_str(), 0640) == 0);
    write_file_atomically(t.file("a.txt"), "second");
    CHECK(slurp(t.file("a.txt")) == "second");
    struct stat st {};
    REQUIRE(::stat(t.file("a.txt").c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0640);
    // Nothing else is left in the folder (no temporary file).
    int files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(t.path)) ++files;
    CHECK(files == 1);
}

TEST_CASE("write_file_atomically: refuses a device or a folder and leaves it in place") {
    temp_dir t;
    fs::create_symlink("/dev/null", t.path / "null_link");
    CHECK(contains(refusal([&] { write_file_atomically(t.file("null_link"), "x"); }),
                   "is a character device"));
    CHECK(fs::is_symlink(t.path / "null_link"));
    CHECK(fs::is_character_file("/dev/null"));
    fs::create_directory(t.path / "dir");
    CHECK(contains(refusal([&] { write_file_atomically(t.file("dir"), "x"); }), "is a folder"));
    CHECK(fs::is_directory(t.path / "dir"));
}

TEST_CASE(
    "write_file_atomically: a symbolic link at the target is replaced, never written through") {
    temp_dir t;
    t.write("victim.txt", "precious");
    fs::create_symlink(t.path / "victim.txt", t.path / "out.txt");
    write_file_atomically(t.file("out.txt"), "new");
    CHECK(slurp(t.file("victim.txt")) == "precious");
    CHECK_FALSE(fs::is_symlink(t.path / "out.txt"));
    CHECK(slurp(t.file("out.txt")) == "new");
}

TEST_CASE("hone import-t1: a symbolic link planted under the old temporary name is not followed") {
    // The temporary name used to be OUTPUT.tmp<pid>: the child's pid is known before it runs,
    // so a link planted under that name tests exactly what an attacker could do.
    temp_dir t;
    t.write("victim.txt", "precious");
    t.write("small.T1.json", small_t1);
    int go[2];
    REQUIRE(::pipe(go) == 0);
    const std::string out = t.file("out.yaml");
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        char c = 0;
        ::close(go[1]);
        if (::read(go[0], &c, 1) != 1) ::_exit(99);
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::dup2(null, 2);
        const std::string in = t.file("small.T1.json");
        ::execl(HONE_BINARY, HONE_BINARY, "import-t1", in.c_str(), "-o", out.c_str(), nullptr);
        ::_exit(98);
    }
    ::close(go[0]);
    fs::create_symlink(t.path / "victim.txt", fmt::format("{}.tmp{}", out, pid));
    REQUIRE(::write(go[1], "x", 1) == 1);
    ::close(go[1]);
    int st = 0;
    REQUIRE(::waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
    CHECK(slurp(t.file("victim.txt")) == "precious");
    CHECK(contains(slurp(out), "bx"));
}

TEST_CASE("terminal_text: control characters shown escaped, text and UTF-8 unchanged") {
    CHECK(terminal_text("plain text, 32 x 4") == "plain text, 32 x 4");
    CHECK(terminal_text("two\nlines\tand a tab") == "two\nlines\tand a tab");
    CHECK(terminal_text("two\nlines", false) == "two\\x0alines");
    CHECK(terminal_text("red \x1b[31mRED\x1b[0m") == "red \\x1b[31mRED\\x1b[0m");
    CHECK(terminal_text("bell\x07 back\b cr\r del\x7f nul", true) ==
          "bell\\x07 back\\x08 cr\\x0d del\\x7f nul");
    CHECK(terminal_text(std::string("a\0b", 3)) == "a\\x00b");
    // UTF-8 kept; C1 controls (U+009B is a CSI on many terminals) escaped.
    CHECK(terminal_text("µs, ±2%, 日本, 😀") == "µs, ±2%, 日本, 😀");
    CHECK(terminal_text("\xc2\x9b"
                        "2J") == "\\u009b2J");
    // Bytes that are not UTF-8 (a lone 0x9b is a CSI in Latin-1), overlong and cut sequences.
    CHECK(terminal_text("\x9b"
                        "2J") == "\\x9b2J");
    CHECK(terminal_text("\xc0\xaf") == "\\xc0\\xaf");
    CHECK(terminal_text("cut \xe6\x97") == "cut \\xe6\\x97");
    CHECK(terminal_text("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
}

TEST_CASE("CSV: a text cell a spreadsheet would evaluate starts with an apostrophe") {
    CHECK(spreadsheet_safe("=1+2") == "'=1+2");
    CHECK(spreadsheet_safe("+cmd") == "'+cmd");
    CHECK(spreadsheet_safe("-2+3") == "'-2+3");
    CHECK(spreadsheet_safe("@SUM(A1)") == "'@SUM(A1)");
    CHECK(spreadsheet_safe("\tx") == "'\tx");
    CHECK(spreadsheet_safe("\rx") == "'\rx");
    // Numbers are data, and so is anything else.
    CHECK(spreadsheet_safe("-1.5") == "-1.5");
    CHECK(spreadsheet_safe("-3e-7") == "-3e-7");
    CHECK(spreadsheet_safe("-") == "'-");
    CHECK(spreadsheet_safe("float4") == "float4");
    CHECK(spreadsheet_safe("") == "");
    CHECK(spreadsheet_safe("a=b") == "a=b");
    // Quoting as RFC 4180 wants, after the apostrophe.
    CHECK(csv_field("=HYPERLINK(\"x\",\"y\")") == "\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\"");
    CHECK(csv_field("=1,2") == "\"'=1,2\"");
    CHECK(csv_field("-7") == "-7");
}

TEST_CASE("outputs of other kinds never replace a database or an input's write-ahead log") {
    temp_dir t;
    const std::string src = std::string(HONE_SOURCE_DIR) + "/bench/recorded/";
    fs::copy_file(src + "vector_add_576_2p24_h100.sqlite", t.file("va.db"));
    fs::copy_file(src + "sgemm_large_subset_h100.sqlite", t.file("other.db"));
    const std::string before = slurp(t.file("other.db"));
    auto refused = [&](const std::string& args, const std::string& why) {
        CAPTURE(args);
        const cli_result r = run_cli(t, args);
        CHECK(r.rc == 2);
        CHECK(contains(r.err, why));
    };
    const std::string is_db = "is a database (SQLite): hone's outputs of other kinds never replace";
    refused("report " + t.file("va.db") + " -o " + t.file("other.db"), is_db);
    refused("export " + t.file("va.db") + " --format t4 -o " + t.file("other.db"), is_db);
    t.write("small.T1.json", small_t1);
    refused("import-t1 " + t.file("small.T1.json") + " -o " + t.file("other.db") + " --force",
            is_db);
    CHECK(slurp(t.file("other.db")) == before);
    refused("report " + t.file("va.db") + " -o " + t.file("va.db-wal"),
            "is a file of the input database");
    CHECK_FALSE(fs::exists(t.path / "va.db-wal.html"));
}

TEST_CASE("hone import-t1 replaces an existing config only with --force") {
    temp_dir t;
    t.write("small.T1.json", small_t1);
    const std::string in = t.file("small.T1.json");
    t.write("mine.yaml", "# edited by hand\n");
    const cli_result r = run_cli(t, "import-t1 " + in + " -o " + t.file("mine.yaml"));
    CHECK(r.rc == 2);
    CHECK(contains(r.err, "exists: a config may hold edits of its own; add --force"));
    CHECK(slurp(t.file("mine.yaml")) == "# edited by hand\n");
    CHECK(run_cli(t, "import-t1 " + in + " -o " + t.file("mine.yaml") + " --force").rc == 0);
    CHECK(contains(slurp(t.file("mine.yaml")), "params"));
}

namespace {

// mix.db in t: the recorded vector_add (run 1) and SGEMM subset (run 2) runs, merged.
void make_mixed_db(temp_dir& t) {
    const std::string src = std::string(HONE_SOURCE_DIR) + "/bench/recorded/";
    fs::copy_file(src + "vector_add_576_2p24_h100.sqlite", t.file("va.db"));
    fs::copy_file(src + "sgemm_large_subset_h100.sqlite", t.file("sg.db"));
    REQUIRE(run_cli(t, "merge " + t.file("va.db") + " " + t.file("sg.db") + " -o " +
                           t.file("mix.db") + " --mixed-kernels")
                .rc == 0);
}

}  // namespace

TEST_CASE("--run N names run N only, never also an id beginning with its digits; wisdom too") {
    temp_dir t;
    make_mixed_db(t);  // two runs; the second's id, 1e864e30d825, begins with "1"
    const cli_result one = run_cli(t, "show " + t.file("mix.db") + " --run 1 --top 1");
    CHECK(one.rc == 0);
    CHECK(contains(one.out, "run 1 ("));
    CHECK_FALSE(contains(one.out, "run 2 ("));
    CHECK(run_cli(t, "export " + t.file("mix.db") + " --format t4 --run 1 -o " + t.file("a.json"))
              .rc == 0);
    CHECK(run_cli(t, "export " + t.file("mix.db") + " --wisdom " + t.file("w.json") + " --run 2")
              .rc == 0);
    CHECK(contains(slurp(t.file("w.json")), "sgemm"));
    CHECK_FALSE(contains(slurp(t.file("w.json")), "vector_add"));
    const cli_result none =
        run_cli(t, "export " + t.file("mix.db") + " --wisdom " + t.file("x.json") + " --run zzz");
    CHECK(none.rc == 2);
    CHECK(contains(none.err, "no run of"));
}

TEST_CASE("hone show --where that matches nothing says so") {
    temp_dir t;
    fs::copy_file(std::string(HONE_SOURCE_DIR) + "/bench/recorded/vector_add_576_2p24_h100.sqlite",
                  t.file("va.db"));
    const cli_result r = run_cli(t, "show " + t.file("va.db") + " --where VEC=5");
    CHECK(r.rc == 0);
    CHECK(contains(r.out, "no configuration matches --where \"VEC=5\""));
    CHECK_FALSE(contains(r.out, "has a timing"));
}

TEST_CASE("hone show --where on a database of several kernels: runs it does not fit are left out") {
    temp_dir t;
    make_mixed_db(t);
    const cli_result r = run_cli(t, "show " + t.file("mix.db") + " --where STRIDED=false --top 1");
    CHECK(r.rc == 0);
    CHECK(contains(r.out, "vector_add"));
    CHECK(contains(r.out, "left out by --where:"));
    CHECK(contains(r.out, "no parameter or column named STRIDED"));
    // JSON: only the runs it fits.
    const cli_result j = run_cli(t, "show " + t.file("mix.db") + " --where STRIDED=false --json");
    CHECK(j.rc == 0);
    const auto runs = nlohmann::json::parse(j.out);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0]["results"].size() > 0);
    // A name of no run: the error, as for one kernel.
    const cli_result bad = run_cli(t, "show " + t.file("mix.db") + " --where NOPE=1");
    CHECK(bad.rc == 2);
    CHECK(contains(bad.err, "no parameter or column named NOPE"));
    CHECK_FALSE(contains(bad.out, "left out"));
}
