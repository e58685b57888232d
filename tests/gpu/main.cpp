// GPU tests: run on a machine with an NVIDIA GPU and driver; elsewhere they skip with a
// message and exit code 77 (ctest reports them as skipped).
//
// hone's worker processes are fork()ed, and CUDA does not survive a fork: this process must not
// initialise CUDA before the isolated tests have run. So the GPU probe runs in a child, and the
// tests of the in-process session (suite "in_process", which initialises CUDA here) run last.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "hone/error.hpp"
#include "hone/gpu.hpp"

namespace {

// 0 when a GPU is usable; prints what was found either way.
int probe_gpu_in_child() {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        try {
            const auto devices = hone::list_devices();
            std::printf("GPU tests on %s (%s)\n", devices.at(0).attrs.name.c_str(),
                        devices.at(0).attrs.arch().c_str());
            std::fflush(stdout);
            _exit(0);
        } catch (const std::exception& e) {
            std::printf("SKIPPED: GPU tests need an NVIDIA GPU and driver: %s\n", e.what());
            std::fflush(stdout);
            _exit(77);
        }
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return 1;
    return WEXITSTATUS(st);
}

int run_pass(int argc, char** argv, const char* filter) {
    std::vector<const char*> args(argv, argv + argc);
    args.push_back(filter);
    doctest::Context ctx(static_cast<int>(args.size()), args.data());
    return ctx.run();
}

}  // namespace

int main(int argc, char** argv) {
    if (const int rc = probe_gpu_in_child(); rc != 0) return rc;
    const int isolated = run_pass(argc, argv, "--test-suite-exclude=in_process");
    const int in_process = run_pass(argc, argv, "--test-suite=in_process");
    return isolated != 0 ? isolated : in_process;
}
