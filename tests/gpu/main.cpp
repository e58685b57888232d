// GPU tests: run on a machine with an NVIDIA GPU and driver; elsewhere they skip with a
// message and exit code 77 (ctest reports them as skipped).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "hone/error.hpp"
#include "hone/gpu.hpp"

int main(int argc, char** argv) {
    try {
        const auto devices = hone::list_devices();
        std::printf("GPU tests on %s (%s)\n", devices.at(0).attrs.name.c_str(),
                    devices.at(0).attrs.arch().c_str());
    } catch (const hone::env_error& e) {
        std::printf("SKIPPED: GPU tests need an NVIDIA GPU and driver: %s\n", e.what());
        return 77;
    }
    doctest::Context ctx(argc, argv);
    return ctx.run();
}
