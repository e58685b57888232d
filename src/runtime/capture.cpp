#include "runtime/capture.hpp"

#include <fmt/format.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/input_limits.hpp"
#include "formats/json_file.hpp"
#include "formats/output_file.hpp"
#include "hone/error.hpp"

namespace hone::runtime {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr const char* capture_format = "hone-capture";
constexpr int capture_version = 1;

std::string kernel_base_name(const std::string& kernel) {
    return kernel.substr(0, kernel.find('<'));
}

std::string sanitize(const std::string& s) {
    std::string out;
    for (char ch : s) {
        const bool ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' ||
                        ch == '=' || ch == ',' || ch == '-';
        out += ok ? ch : '_';
    }
    return out;
}

void write_file(const fs::path& path, const void* data, std::size_t bytes) {
    try {
        write_file_atomically(path.string(), std::string(static_cast<const char*>(data), bytes));
    } catch (const std::runtime_error& e) {  // env_error, or input_error for a device there
        throw env_error(
            fmt::format("capture folder {}: {}", path.parent_path().string(), e.what()));
    }
}

[[noreturn]] void bad(const std::string& file, const std::string& what) {
    throw input_error({file, 0, 0}, what);
}

std::string text_field(const json& j, const char* name, const std::string& file) {
    const auto it = j.find(name);
    if (it == j.end() || !it->is_string())
        bad(file, fmt::format("\"{}\": expected a string", name));
    return it->get<std::string>();
}

}  // namespace

const capture_settings& capture_from_env() {
    static const capture_settings s = [] {
        capture_settings c;
        if (const char* p = std::getenv("HONE_CAPTURE")) c.pattern = p;
        if (const char* d = std::getenv("HONE_CAPTURE_DIR"); d && *d) c.dir = d;
        if (const char* i = std::getenv("HONE_CAPTURE_INPUTS"))
            c.inputs = *i && std::strcmp(i, "0") != 0;
        return c;
    }();
    return s;
}

bool capture_matches(const std::string& pattern, const std::string& kernel_name) {
    if (pattern.empty()) return false;
    return fnmatch(pattern.c_str(), kernel_base_name(kernel_name).c_str(), 0) == 0 ||
           fnmatch(pattern.c_str(), kernel_name.c_str(), 0) == 0;
}

std::string capture_stem(const capture_record& r) {
    std::string problem;
    for (const auto& [name, v] : r.problem)
        problem += fmt::format("{}{}={}", problem.empty() ? "" : ",", name, v);
    return sanitize(fmt::format("{}.{}.{}", fs::path(r.config).stem().string(),
                                kernel_base_name(r.kernel), problem));
}

void write_capture(const std::string& dir, capture_record rec,
                   const std::function<void(std::size_t, void*)>& read) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir, ec))
        throw env_error(fmt::format("capture folder {} cannot be created: {}", dir,
                                    ec ? ec.message() : "a file of that name exists"));
    const std::string stem = capture_stem(rec);
    for (std::size_t i = 0; i < rec.inputs.size(); ++i) {
        capture_input& in = rec.inputs[i];
        in.file = sanitize(fmt::format("{}.{}.bin", stem, in.buffer));
        std::unique_ptr<char[]> data(new char[in.bytes]);
        read(i, data.get());
        write_file(fs::path(dir) / in.file, data.get(), in.bytes);
    }
    json j;
    j["format"] = capture_format;
    j["version"] = capture_version;
    j["config"] = rec.config;
    j["kernel"] = rec.kernel;
    json problem = json::object();
    for (const auto& [name, v] : rec.problem) problem[name] = v;
    j["problem"] = problem;
    j["device"] = {{"name", rec.device_name}, {"arch", rec.arch}, {"uuid", rec.uuid}};
    json inputs = json::object();
    for (const auto& in : rec.inputs)
        inputs[in.buffer] = {
            {"file", in.file}, {"type", in.type}, {"count", in.count}, {"bytes", in.bytes}};
    j["inputs"] = inputs;
    const std::string text = j.dump(2) + "\n";
    write_file(fs::path(dir) / (stem + ".json"), text.data(), text.size());
}

std::vector<capture_record> read_captures(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw input_error({dir, 0, 0},
                          "no such folder: expected a capture folder (HONE_CAPTURE_DIR of an "
                          "application run with HONE_CAPTURE set)");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<capture_record> out;
    for (const fs::path& p : files) {
        const std::string file = p.string();
        const std::string text = read_file_capped(file, max_input_bytes()).value_or("");
        check_json_depth(text, file);
        json j;
        try {
            j = json::parse(text);
        } catch (const json::out_of_range&) {
            parse_json(text, file);  // throws the input_error with the number's position
            throw;
        } catch (const json::parse_error& e) {
            source_pos pos{file, 1, 1};
            for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
                if (text[i] == '\n') {
                    ++pos.line;
                    pos.column = 1;
                } else {
                    ++pos.column;
                }
            }
            const std::string what = e.what();
            const std::size_t at = what.find(": ", what.find("column "));
            throw input_error(pos,
                              fmt::format("not valid JSON ({}); expected a hone capture file",
                                          at == std::string::npos ? what : what.substr(at + 2)));
        }
        if (!j.is_object() || !j.contains("format") || j["format"] != capture_format)
            bad(file,
                "not a hone capture file: expected \"format\": \"hone-capture\" (only capture "
                "files belong "
                "in a capture folder)");
        if (!j.contains("version") || j["version"] != capture_version)
            bad(file, fmt::format("capture version {}; this hone reads version {}",
                                  j.contains("version") ? j["version"].dump() : "missing",
                                  capture_version));
        capture_record r;
        r.path = file;
        r.config = text_field(j, "config", file);
        r.kernel = text_field(j, "kernel", file);
        const auto problem = j.find("problem");
        if (problem == j.end() || !problem->is_object())
            bad(file, "\"problem\": expected an object of sizes");
        for (const auto& [name, v] : problem->items()) {
            if (!v.is_number_integer())
                bad(file, fmt::format("\"problem\".{}: expected an integer", name));
            r.problem.emplace_back(name, v.get<int64_t>());
        }
        if (const auto dev = j.find("device"); dev != j.end() && dev->is_object()) {
            r.device_name = dev->value("name", "");
            r.arch = dev->value("arch", "");
            r.uuid = dev->value("uuid", "");
        }
        if (const auto inputs = j.find("inputs"); inputs != j.end()) {
            if (!inputs->is_object()) bad(file, "\"inputs\": expected an object");
            for (const auto& [name, v] : inputs->items()) {
                if (!v.is_object() || !v.contains("file") || !v["file"].is_string())
                    bad(file, fmt::format("\"inputs\".{}: expected an object with \"file\"", name));
                capture_input ci;
                ci.buffer = name;
                ci.file = (fs::path(dir) / v["file"].get<std::string>()).string();
                ci.type = v.value("type", "");
                ci.count = v.value("count", uint64_t{0});
                ci.bytes = v.value("bytes", uint64_t{0});
                if (!fs::is_regular_file(ci.file, ec))
                    bad(file, fmt::format("input '{}': {} is missing", name, ci.file));
                r.inputs.push_back(std::move(ci));
            }
        }
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace hone::runtime
