// The parts of the GPU layer that need no GPU: error classes, device tables, memory budget,
// sample modes, statuses, and the refusal where there is no driver.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "driver/cuda_api.hpp"
#include "driver/driver.hpp"
#include "driver/gpu.hpp"
#include "driver_probe.hpp"
#include "hone/device_attrs.hpp"
#include "hone/status.hpp"
#include "measure/memory_budget.hpp"
#include "measure/sample_mode.hpp"

using namespace hone;

namespace {

constexpr uint64_t mib = 1 << 20;

buffer_plan buffer(const char* name, uint64_t mebibytes, bool device, bool managed) {
    buffer_plan b;
    b.name = name;
    b.type = elem_type::f32;
    b.count = mebibytes * mib / 4;
    b.need_device = device;
    b.need_managed = managed;
    return b;
}

}  // namespace

TEST_CASE("status names round-trip") {
    for (int i = 0; i <= static_cast<int>(status::timeout); ++i) {
        const auto s = static_cast<status>(i);
        CHECK(parse_status(status_name(s)) == s);
    }
    CHECK(std::string(status_name(status::not_converged)) == "not_converged");
    CHECK_FALSE(parse_status("fine").has_value());
}

TEST_CASE("sticky errors are told from recoverable ones") {
    for (const int code : {700, 702, 710, 714, 715, 716, 717, 718, 719})
        CHECK(is_sticky_error(code));
    for (const int code : {1, 2, 98, 200, 209, 701, 720}) CHECK_FALSE(is_sticky_error(code));
    const cuda_error e(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "cuLaunchKernel: too many");
    CHECK_FALSE(e.sticky());
    CHECK(std::string(e.what()) == "cuLaunchKernel: too many");
}

TEST_CASE("nominal devices describe a representative part") {
    const auto h100 = nominal_device("sm_90");
    REQUIRE(h100.has_value());
    CHECK(h100->arch() == "sm_90");
    CHECK(h100->sm_count == 132);
    CHECK(h100->max_threads_per_sm == 2048);
    CHECK(h100->max_shared_per_block_optin == 227 * 1024);
    CHECK(h100->max_shared_per_sm == 228 * 1024);
    CHECK(h100->l2_bytes == 50 * 1024 * 1024);
    CHECK(h100->total_mem == 80LL << 30);
    for (const char* arch : {"sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_100", "sm_120"}) {
        const auto d = nominal_device(arch);
        REQUIRE(d.has_value());
        CHECK(d->arch() == arch);
        CHECK(d->max_shared_per_block_optin <= d->max_shared_per_sm);
    }
    CHECK_FALSE(nominal_device("sm_42").has_value());
    // Architectures the table lacks take the figures of the closest part below; a suffix
    // (arch-specific features) those of its base.
    const auto orin = nominal_device("sm_87");
    REQUIRE(orin.has_value());
    CHECK(orin->arch() == "sm_87");
    CHECK(orin->sm_count == nominal_device("sm_86")->sm_count);
    CHECK(orin->name.find("the figures of") != std::string::npos);
    CHECK(nominal_device("sm_121")->arch() == "sm_121");
    CHECK(nominal_device("sm_90a")->sm_count == 132);
    CHECK(nominal_device("sm_100f")->arch() == "sm_100");
    for (const char* bad : {"sm_9", "sm_9x", "sm_1000", "90", "sm_", "compute_90"})
        CHECK_FALSE(nominal_device(bad).has_value());
    bindings b;
    h100->add_to(b);
    for (const char* name :
         {"sm_count", "max_threads_per_block", "max_threads_per_sm", "max_shared_per_block",
          "max_shared_per_block_optin", "max_shared_per_sm", "regs_per_block", "regs_per_sm",
          "l2_bytes", "warp_size", "cc_major", "cc_minor", "total_mem", "arch"})
        CHECK_MESSAGE(b.count(name) == 1, name);
    CHECK(std::get<int64_t>(b.at("cc_major")) == 9);
    CHECK(std::get<std::string>(b.at("arch")) == "sm_90");
}

TEST_CASE("memory budget: every set a buffer is used in, and the flush buffer") {
    run_plan plan;
    plan.timing.l2_flush = true;
    plan.buffers = {buffer("a", 100, true, false), buffer("b", 100, true, true),
                    buffer("c", 10, false, true)};
    CHECK(device_bytes_needed(plan, 50 * mib) == (100 + 200 + 10 + 50) * mib);
    // The reference launch's set is needed too, whatever the configurations use.
    plan.reference = launch_desc{};
    plan.reference->memory = memory_kind::device;
    CHECK(device_bytes_needed(plan, 50 * mib) == (100 + 200 + 20 + 50) * mib);
    plan.timing.l2_flush = false;
    CHECK(device_bytes_needed(plan, 50 * mib) == (100 + 200 + 20) * mib);
    CHECK(flush_buffer_bytes(50 * mib) == 50 * mib);
    CHECK(flush_buffer_bytes(3) == 4);  // whole words, for the 32-bit memset
    CHECK(flush_buffer_bytes(-1) == 0);
}

TEST_CASE("memory budget refuses above 90% of what is free") {
    CHECK_NOTHROW(check_device_memory(900 * mib, 1000 * mib));
    CHECK_THROWS_WITH_AS(check_device_memory(900 * mib, 999 * mib),
                         "the buffers need 900.0 MiB of device memory, 999.0 MiB free (hone uses "
                         "at most 90% of it); reduce the problem size",
                         env_error);
    CHECK(format_bytes(12) == "12 bytes");
    CHECK(format_bytes(1536) == "1.5 KiB");
    CHECK(format_bytes(uint64_t{13} << 30) == "13.0 GiB");
}

TEST_CASE("sample mode: flush, spin or batch") {
    timing_spec t;
    t.l2_flush = true;
    CHECK(choose_sample_mode(t, 3.0).name() == "single+flush");
    CHECK(choose_sample_mode(t, 300.0).name() == "single+flush");
    t.l2_flush = false;
    CHECK(choose_sample_mode(t, 25.0).name() == "single+spin");
    CHECK(choose_sample_mode(t, 5.0).name() == "batch:40");
    CHECK(choose_sample_mode(t, 0.0).name() == "batch:10000");
    t.sample_mode = "single";
    CHECK(choose_sample_mode(t, 5.0).name() == "single+spin");
    t.sample_mode = "batch";
    t.l2_flush = true;
    CHECK(choose_sample_mode(t, 1000.0).name() == "batch:1");
    CHECK(choose_sample_mode(t, 7.0).name() == "batch:29");
}

TEST_CASE(
    "samples come in rounds: min_samples first, then a quarter more, never past max_samples") {
    CHECK(next_round(0, 10, 100) == 10);
    CHECK(next_round(4, 10, 100) == 6);  // a round cut short never happens, but resumes right
    CHECK(next_round(10, 10, 100) == 2);
    CHECK(next_round(99, 10, 100) == 1);  // capped at max_samples
    CHECK(next_round(100, 10, 100) == 0);
    CHECK(next_round(150, 10, 1000) == 37);
    CHECK(next_round(990, 10, 1000) == 10);
    CHECK(next_round(3, 0, 100) == 1);  // a round is at least one sample
    CHECK(next_round(0, 0, 0) == 1);    // and there is at least one
    CHECK(next_round(1, 0, 0) == 0);
    CHECK(next_round(0, 20, 5) == 20);  // max below min: min wins, as in the criterion
    // Summing the rounds reaches max_samples exactly, in few rounds.
    std::size_t n = 0, rounds = 0;
    std::vector<std::size_t> ends;
    while (const std::size_t k = next_round(n, 10, 200)) {
        n += k;
        ++rounds;
        ends.push_back(n);
    }
    CHECK(n == 200);
    CHECK(ends == std::vector<std::size_t>{10, 12, 15, 18, 22, 27, 33, 41, 51, 63, 78, 97, 121, 151,
                                           188, 200});
}

TEST_CASE("without a driver, GPU entry points fail with a clear env_error") {
    if (driver_installed()) {
        MESSAGE("a CUDA driver is installed here: the GPU tests cover this path");
        return;
    }
    // HONE_EXPECT_STUB: set by the next test, which loads the toolkit's stub libcuda.
    const char* stub = std::getenv("HONE_EXPECT_STUB");
    const std::string expected =
        stub ? "CUDA_ERROR_STUB_LIBRARY" : "libcuda.so.1 could not be loaded";
    CHECK_THROWS_WITH_AS(list_devices(), doctest::Contains(expected.c_str()), env_error);
    CHECK_THROWS_WITH_AS(make_in_process_session(0), doctest::Contains("no CUDA driver found"),
                         env_error);
    CHECK_THROWS_WITH_AS(
        list_devices(),
        doctest::Contains("`hone check` and `hone space` work without one, given --arch"),
        env_error);
}

TEST_CASE("the toolkit's stub libcuda counts as no driver") {
    const std::string stubs = "/usr/local/cuda/lib64/stubs";
    if (driver_installed() || std::getenv("HONE_EXPECT_STUB") ||
        !std::filesystem::exists(stubs + "/libcuda.so")) {
        MESSAGE("no stub library to try, or a real driver is installed");
        return;
    }
    const std::string self = std::filesystem::read_symlink("/proc/self/exe");
    const std::string cmd = "HONE_EXPECT_STUB=1 LD_LIBRARY_PATH=" + stubs + " '" + self +
                            "' -tc='without a driver*' > /dev/null";
    CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("hone's own GPU processes ask for one hardware work queue, unless told otherwise") {
    const char* name = "CUDA_DEVICE_MAX_CONNECTIONS";
    const char* before = std::getenv(name);
    const std::string saved = before ? before : "";
    ::unsetenv(name);
    cu::prefer_one_work_queue();
    REQUIRE(std::getenv(name) != nullptr);
    CHECK(std::string(std::getenv(name)) == "1");
    ::setenv(name, "4", 1);  // the user's choice stays
    cu::prefer_one_work_queue();
    CHECK(std::string(std::getenv(name)) == "4");
    if (before)
        ::setenv(name, saved.c_str(), 1);
    else
        ::unsetenv(name);
}

TEST_CASE("a GPU worker sees only its GPU: CUDA_VISIBLE_DEVICES for an ordinal") {
    // Unset: the ordinal itself.
    CHECK(cu::visible_devices_for(nullptr, 0) == "0");
    CHECK(cu::visible_devices_for(nullptr, 3) == "3");
    // Set: that entry of the list, as written (indices, UUIDs, MIG instances).
    CHECK(cu::visible_devices_for("2,3", 0) == "2");
    CHECK(cu::visible_devices_for("2,3", 1) == "3");
    CHECK(cu::visible_devices_for("GPU-1234, GPU-abcd", 1) == "GPU-abcd");
    CHECK(cu::visible_devices_for("MIG-5678", 0) == "MIG-5678");
    // No such entry, an empty one or a negative ordinal: the environment stays as it is.
    CHECK_FALSE(cu::visible_devices_for("2,3", 2));
    CHECK_FALSE(cu::visible_devices_for("", 0));
    CHECK_FALSE(cu::visible_devices_for("1,,2", 1));
    CHECK_FALSE(cu::visible_devices_for(nullptr, -1));
}
