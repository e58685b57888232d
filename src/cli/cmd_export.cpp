// hone export: stored results in another form. --wisdom writes what an application's kernel
// handle reads (hone/kernel.hpp). Each form is one option and one function below, so that
// further forms add an option and a branch.
#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "cli/commands_internal.hpp"
#include "hone/error.hpp"
#include "hone/wisdom.hpp"

namespace hone::cli {
namespace {

namespace fs = std::filesystem;

struct export_args {
    std::string db;
    std::string wisdom;
    int top = 16;
    bool merge = false;
};

auto entry_key(const tuned_entry& e) {
    return std::tie(e.kernel, e.source_hash, e.spec_hash, e.device_name, e.problem, e.origin);
}

// An existing file at `path` is replaced only when it is a wisdom file: a database or any other
// file named by mistake is left as it was.
std::vector<tuned_entry> existing_wisdom(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return {};
    std::ifstream in(path, std::ios::binary);
    char head[16] = {};
    in.read(head, sizeof head);
    if (in.gcount() == 16 && std::memcmp(head, "SQLite format 3", 16) == 0)
        throw input_error({path, 0, 0},
                          "is a results database, not a wisdom file: it was left unchanged; "
                          "give --wisdom another name");
    try {
        return read_tuned(path);
    } catch (const input_error& e) {
        throw input_error(
            e.pos(), fmt::format("{} (the file exists and is not a hone wisdom file: it was left "
                                 "unchanged; give --wisdom another name)",
                                 e.message()));
    }
}

int export_wisdom(const export_args& a) {
    std::vector<tuned_entry> fresh = tuned_from_db(a.db);
    if (fresh.empty()) {
        fmt::print(stderr, "error: {}: no run has a ranked configuration: nothing to export\n",
                   a.db);
        return 1;
    }
    std::vector<tuned_entry> old = existing_wisdom(a.wisdom);
    std::vector<tuned_entry> out;
    std::size_t kept = 0;
    if (a.merge) {
        std::set<decltype(entry_key(fresh.front()))> replaced;
        for (const auto& e : fresh) replaced.insert(entry_key(e));
        for (auto& e : old) {
            if (replaced.count(entry_key(e))) continue;
            out.push_back(std::move(e));
            ++kept;
        }
    }
    std::set<std::string> kernels, devices;
    for (auto& e : fresh) {
        kernels.insert(e.kernel);
        devices.insert(e.device_name);
        out.push_back(std::move(e));
    }
    write_wisdom(a.wisdom, out, static_cast<std::size_t>(a.top));
    fmt::print("{}: {} entries ({} kernel{}, {} device{}) from {}{}\n", a.wisdom, out.size(),
               kernels.size(), kernels.size() == 1 ? "" : "s", devices.size(),
               devices.size() == 1 ? "" : "s", a.db,
               a.merge ? fmt::format(", {} kept from the file", kept) : "");
    return 0;
}

int run_export(const export_args& a) {
    if (!a.wisdom.empty()) return export_wisdom(a);
    throw input_error({"hone export", 0, 0}, "nothing to export: give --wisdom FILE");
}

}  // namespace

void register_export(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<export_args>();
    CLI::App* c = app.add_subcommand(
        "export", "Write stored results in another form (--wisdom: for applications)");
    c->footer(
        R"(--wisdom FILE writes a small, diffable JSON file for hone::kernel (hone/kernel.hpp): for each
run of the database (kernel, source and spec hash, device, problem sizes) the best configuration
with its time and objective value, the next best ones with their time relative to the best
(which the handle's nearest-size rule interpolates), and the identity it was tuned under
(device name, uuid, arch, driver, NVRTC and hone versions). Entries are sorted and each
configuration takes one line, so that re-tuning one size shows as a small diff.

An existing FILE is replaced only when it is a wisdom file; with --merge its entries for other
runs are kept (several databases into one file).

Examples:
  hone export configs/vector_add.db --wisdom wisdom.json
  hone export configs/sgemm.db --wisdom wisdom.json --merge --top 32)");
    c->add_option("db", a->db, "Results database")->required()->check(CLI::ExistingFile);
    c->add_option("--wisdom", a->wisdom, "Write a wisdom file for hone::kernel");
    c->add_option("--top", a->top,
                  "Configurations kept per entry, best first (default 16; 0 = all)")
        ->check(CLI::NonNegativeNumber);
    c->add_flag("--merge", a->merge,
                "Keep the entries of an existing wisdom file that this database does not replace");
    c->callback([a, &action] { action = [a] { return run_export(*a); }; });
}

}  // namespace hone::cli
