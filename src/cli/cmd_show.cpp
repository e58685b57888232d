// hone show: print stored results.
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "cli/commands_internal.hpp"
#include "cli/options.hpp"
#include "formats/output_file.hpp"
#include "formats/stored_runs.hpp"
#include "hone/final_word.hpp"
#include "hone/store.hpp"
#include "record/run_labels.hpp"
#include "report/report.hpp"

namespace hone::cli {
namespace {

struct show_args {
    std::string db, where;
    std::size_t top = 10;
    std::string run;  // number or id prefix; "": every current run (or every run with all_runs)
    bool json = false, all = false, all_runs = false;
};

const stored_run* find_run(const std::vector<stored_run>& runs, int64_t id) {
    for (const auto& r : runs)
        if (r.run_id == id) return &r;
    return nullptr;
}

// Why a superseded run's results are not the current ones: what changed in the run after it.
std::string superseded_note(const std::vector<stored_run>& runs, const stored_run& r) {
    const stored_run* newer = find_run(runs, r.superseded_by);
    if (!newer) return "";
    std::string why = describe_change(r.identity, newer->identity);
    why = why.substr(0, why.find(" since"));  // "source changed"
    return fmt::format("superseded by run {} ({} since these results)", newer->run_id, why);
}

// The JSON of show is written one result at a time, as nlohmann's dump(2) would write the
// document of every run: such a document costs some 20 times the database (10^6 results took
// 5.8 GB).
class json_runs_writer {
  public:
    void run(const nlohmann::ordered_json& head, const std::vector<eval_record>& records) {
        std::string text = dump(head);  // "{\n  ...\n}"
        text.erase(text.size() - 2);    // the closing "\n}": "results" goes last
        buffer_ += runs_ ? ",\n" : "[\n";
        indent(text, 2);
        buffer_ += ",\n    \"results\": [";
        for (std::size_t i = 0; i < records.size(); ++i) {
            buffer_ += i ? ",\n" : "\n";
            indent(dump(to_json(records[i])), 6);  // an element of to_json(records)
            if (buffer_.size() > (std::size_t{1} << 20)) flush();
        }
        buffer_ += records.empty() ? "]\n  }" : "\n    ]\n  }";
        ++runs_;
    }
    void finish() {
        buffer_ += runs_ ? "\n]\n" : "[]\n";
        flush();
    }

  private:
    static std::string dump(const nlohmann::ordered_json& j) {
        // Invalid UTF-8 in an imported name is written as U+FFFD, not refused.
        return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    }
    // Every line of text, indented: a JSON text has no line break inside a string.
    void indent(const std::string& text, std::size_t spaces) {
        for (std::size_t start = 0; start < text.size();) {
            const std::size_t end = std::min(text.find('\n', start), text.size());
            if (start) buffer_ += '\n';
            buffer_.append(spaces, ' ');
            buffer_.append(text, start, end - start);
            start = end + 1;
        }
    }
    void flush() {
        write_stdout(buffer_);
        buffer_.clear();
    }
    std::string buffer_;
    std::size_t runs_ = 0;
};

int run_show(const show_args& a) {
    struct stat st {};
    if (stat(a.db.c_str(), &st) != 0) throw input_error({a.db, 0, 0}, "no such results database");
    results_store store(a.db, store_access::read_only);
    const auto runs = store.stored_runs();
    std::vector<int64_t> numbers;
    for (const auto& r : runs) numbers.push_back(r.run_id);
    const bool by_number = selector_is_number(a.run, numbers);
    const auto selected = [&](const stored_run& r) {
        return run_selected(r.run_id, r.identity.id(), a.run, by_number);
    };
    if (!a.run.empty() && std::none_of(runs.begin(), runs.end(), selected)) {
        std::string ids;
        for (const auto& r : runs)
            ids += fmt::format("{}{} ({})", ids.empty() ? "" : ", ", r.run_id,
                               r.identity.id().substr(0, 12));
        throw input_error({"--run", 0, 0}, fmt::format("{} has no run {} (runs: {})", a.db, a.run,
                                                       ids.empty() ? "none" : ids));
    }
    json_runs_writer json_out;
    std::vector<const stored_run*> older;  // superseded runs left out
    // A database of several kernels: --where naming one kernel's parameters leaves the other
    // kernels' runs out, saying so; it is an error only when it fits no run.
    std::optional<input_error> unfit;
    std::string left_out;
    std::size_t fitted = 0;
    for (const auto& run : runs) {
        if (!a.run.empty() ? !selected(run) : run.superseded_by != 0 && !a.all_runs) {
            if (a.run.empty()) older.push_back(&run);
            continue;
        }
        store_query q;
        q.identity = run.identity.id();
        q.where = a.where;
        std::vector<eval_record> records;
        try {
            records = store.query(q);
            ++fitted;
        } catch (const input_error& e) {
            if (a.where.empty()) throw;
            if (!unfit) unfit = e;
            left_out +=
                fmt::format("  run {} ({}, {}): {}\n", run.run_id, run.identity.id().substr(0, 12),
                            run.identity.kernel_name, e.message());
            continue;
        }
        const std::string note = superseded_note(runs, run);
        const auto final = final_word_from_json(store.final_word(q.identity));
        if (a.json) {
            json_out.run(
                {{"run", run.run_id},
                 {"first_seen", run.first_seen},
                 {"last_seen", run.last_seen},
                 {"superseded_by", run.superseded_by ? nlohmann::ordered_json(run.superseded_by)
                                                     : nlohmann::ordered_json()},
                 {"identity", to_json(run.identity)},
                 {"final_word", final ? nlohmann::ordered_json::parse(to_json_text(*final))
                                      : nlohmann::ordered_json()}},
                records);
            continue;
        }
        const run_identity& id = run.identity;
        const std::string rank = id.objective.empty() ? "time" : id.objective;
        if (id.origin.empty()) {
            print_text(
                "run {} ({}): {} on {} ({}), {}; hone {}, NVRTC {}; tuned {}, ranked by {}\n",
                run.run_id, id.id().substr(0, 12), id.kernel_name, id.device_name, id.arch,
                id.problem, id.tool_version, id.nvrtc_version, run.last_seen, rank);
        } else {  // measured elsewhere: never mixed with hone's own runs
            // Imported files may name no kernel, device or problem (T4 keeps them elsewhere).
            print_text("run {} ({}): {} on {}{}; imported: {}; ranked by {}\n", run.run_id,
                       id.id().substr(0, 12), kernel_label(id), device_label(id),
                       id.problem.empty() ? "" : ", " + id.problem, id.origin, rank);
        }
        if (!note.empty()) print_text("{}\n", note);
        print_text("{}\n", status_summary(records));
        table_options t;
        t.top = a.all ? 0 : a.top;
        t.by = stored_rank_by(id);
        if (records.empty() && !a.where.empty())
            print_text("no configuration matches --where \"{}\"\n", a.where);
        else
            print_text("{}\n", best_table(records, t));
        if (final) print_text("{}\n", final_word_text(*final));
        if (const std::string f = failure_table(records, t); !f.empty()) print_text("{}\n", f);
    }
    if (unfit && fitted == 0) throw *unfit;
    if (a.json) {
        json_out.finish();
        return 0;
    }
    if (runs.empty()) print_text("{}: no runs stored\n", a.db);
    if (!left_out.empty()) print_text("left out by --where:\n{}", left_out);
    if (!older.empty()) {
        std::string list;
        for (const auto* r : older)
            list += fmt::format("  run {}: tuned {}, {} results, {}\n", r->run_id, r->last_seen,
                                r->results, superseded_note(runs, *r));
        print_text("older results (hone show {} --run N, or --all-runs):\n{}", a.db, list);
    }
    return 0;
}

}  // namespace

void register_show(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<show_args>();
    CLI::App* c = app.add_subcommand("show", "Print stored results, best first");
    c->footer(
        R"(Each run is one identity: the same config, kernel source (with every file it includes),
options, problem sizes, device, driver, NVRTC and hone. By default hone show prints each
config's current run, the one tuned last; results of older identities (before a header was
edited, say) are listed after it as superseded, and --run N or --all-runs prints them.
Rows are ranked by the objective the run was tuned for (metrics.objective).

--where takes comma-separated terms NAME OP VALUE (OP: = != < <= > >=), where NAME is a
parameter or one of status, median_us, gbps, gflops, regs, occupancy. In a database of
several kernels, the runs of a kernel without such a parameter are left out (listed last);
a name that no run has is an error.

Each run is headed by its number and its identity id (the first 12 characters); --run of
show, export and report takes either. An imported run names the tool and file its data
came from.

Examples:
  hone show configs/vector_add.db --top 5
  hone show configs/vector_add.db --run 1
  hone show configs/vector_add.db --where "VEC=4,status=ok" --json)");
    c->add_option("db", a->db, "Results database")->required();
    c->add_option("--top", a->top, "Rows per run (default 10)")
        ->check(whole_number(0, std::numeric_limits<int64_t>::max()));
    c->add_flag("--all", a->all, "Every row: every ranked result and every failure");
    c->add_option("--run", a->run, "Only this run: its number or the first characters of its id");
    c->add_flag("--all-runs", a->all_runs, "Superseded runs too, oldest first");
    c->add_option("--where", a->where, "Filter, e.g. \"BLOCK>=256,status=ok\"");
    c->add_flag("--json", a->json, "Machine-readable output");
    c->callback([a, &action] { action = [a] { return run_show(*a); }; });
}

}  // namespace hone::cli
