// hone: the command line over libhone. Exit codes: 0 ok, 1 a check/tune found failures,
// 2 bad input (file:line:column: message), 3 environment (no driver, no GPU, I/O), 4 internal.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <system_error>

#include "cli/commands.hpp"
#include "common/terminal_text.hpp"
#include "common/trace.hpp"
#include "formats/output_file.hpp"
#include "hone/error.hpp"
#include "hone/record.hpp"

namespace {

const char* const k_description = R"(hone: autotune CUDA kernels.

A search config (YAML) names a kernel source, its tunable parameters and constraints, the
buffers and arguments, how to launch it, how to verify it, and how to time it. hone compiles
every configuration with NVRTC (straight to CUBIN), runs it through the CUDA driver in a
supervised worker process, checks its output against a reference, times it until the 95%
confidence interval of the median is within the requested precision, and stores every result
in SQLite as it finishes. Re-running the same command resumes.

Examples:
  hone check configs/vector_add.yaml --arch sm_90     compile every configuration, no GPU needed
  hone tune configs/vector_add.yaml                   tune on GPU 0
  hone tune configs/vector_add.yaml --set N=65536     override a problem size
  hone show configs/vector_add.db --top 5 --where "VEC=4,status=ok"
  hone devices                                        list GPUs and their attributes
  hone report configs/vector_add.db                   one HTML page of tables and charts
  hone export configs/vector_add.db --format t4 -o va.t4.json   T4, kt-cache or csv
  hone import gemm_RTX_2080_Ti.json.gz -o gemm.db     Kernel Tuner cache or T4 results
  hone space configs/sgemm.yaml --arch sm_90          count the search space, compile nothing
  hone import-t1 gemm.T1.json -o gemm.yaml            a config from a T1 tuning-input file
  hone tune configs/sgemm.yaml --shard 0/4 -o s0.db   one of four shards (docs/distributed.md)
  hone merge s0.db s1.db s2.db s3.db -o all.db        join shards' databases into one
  mpirun -n 4 hone tune configs/sgemm.yaml            one run over MPI ranks' GPUs

Exit codes: 0 ok; 1 failures found; 2 bad input; 3 no driver/GPU or I/O error; 4 internal error.
)";

// Address space held back for unwinding after an allocation fails under a memory limit
// (ulimit -v, a container's). Destructors that allocate as they free (nlohmann's json frees a
// container through a vector of its children, 16 bytes a child) would otherwise fail inside a
// noexcept destructor and abort the program; with the reserve released first they complete,
// and the failure reaches main as std::bad_alloc: exit code 3 with a message. The first failing
// allocation releases the reserve and fails: the work that needed more is not continued on it.
constexpr std::size_t k_reserve_bytes = std::size_t{32} << 20;
void* g_reserve = nullptr;

void release_reserve_and_fail() {
    std::free(g_reserve);
    g_reserve = nullptr;
    std::set_new_handler(nullptr);
    throw std::bad_alloc();
}

}  // namespace

int main(int argc, char** argv) {
    // Never touched: it takes address space, not memory.
    g_reserve = std::malloc(k_reserve_bytes);
    hone::trace_mark("main");
    if (g_reserve) std::set_new_handler(release_reserve_and_fail);
    CLI::App app{k_description, "hone"};
    app.set_version_flag("--version", std::string("hone ") + hone::tool_version());
    app.require_subcommand(1);
    app.get_formatter()->column_width(34);
    // A refused option value is echoed in the message: shown escaped, as any text from outside.
    app.failure_message([](const CLI::App* a, const CLI::Error& e) {
        return hone::terminal_text(CLI::FailureMessage::simple(a, e));
    });
    hone::cli::register_commands(app);
    try {
        app.parse(argc, argv);
        const int rc = hone::cli::run_selected(app);
        hone::trace_mark("command returned");
        // Output that did not arrive (a full disk, a closed pipe) is an error, never a silent
        // loss: exit code 3 whatever the command found.
        if (const std::string lost = hone::finish_stdout(); !lost.empty()) {
            fmt::print(stderr, "error: {}\n", lost);
            return 3;
        }
        return rc;
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        if (const std::string lost = hone::finish_stdout(); !lost.empty()) {
            fmt::print(stderr, "error: {}\n", lost);
            return 3;
        }
        return rc == 0 ? 0 : 2;
    } catch (const hone::input_error& e) {
        std::fflush(stdout);
        fmt::print(stderr, "error: {}\n", hone::terminal_text(e.what()));
        return 2;
    } catch (const hone::env_error& e) {
        std::fflush(stdout);
        fmt::print(stderr, "error: {}\n", hone::terminal_text(e.what()));
        return 3;
    } catch (const std::bad_alloc&) {
        // A memory limit (ulimit -v, a container's) that the input needs more than: the
        // environment's, as docs/limits.md states what each command needs.
        std::fflush(stdout);
        std::fputs(
            "error: out of memory: the process's memory limit is below what this input "
            "needs (docs/limits.md)\n",
            stderr);
        return 3;
    } catch (const std::system_error& e) {  // I/O: a write that failed, a file system error
        std::fflush(stdout);
        fmt::print(stderr, "error: {}\n", hone::terminal_text(e.what()));
        return 3;
    } catch (const std::exception& e) {
        std::fflush(stdout);
        fmt::print(stderr, "internal error: {}\n", hone::terminal_text(e.what()));
        return 4;
    }
}
