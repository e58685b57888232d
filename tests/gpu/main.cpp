// GPU tests: run on a machine with an NVIDIA GPU and driver; elsewhere they skip with a
// message and exit code 77 (ctest reports them as skipped).
//
// hone's worker processes are spawned executables (hone-worker), so this process may use CUDA
// itself before and while it tunes, as an application embedding libhone does
// (test_in_app.cpp): the GPU probe and the in-process tests run here, in any order.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "../worker_env.hpp"
#include "driver/gpu.hpp"
#include "hone/error.hpp"

int main(int argc, char** argv) {
    use_built_worker();
    try {
        const auto devices = hone::list_devices();
        std::printf("GPU tests on %s (%s)\n", devices.at(0).attrs.name.c_str(),
                    devices.at(0).attrs.arch().c_str());
    } catch (const std::exception& e) {
        std::printf("SKIPPED: GPU tests need an NVIDIA GPU and driver: %s\n", e.what());
        return 77;
    }
    std::fflush(stdout);
    doctest::Context ctx(argc, argv);
    return ctx.run();
}
