// The pure rules of the GPU session's timing: how long a configuration warms up, when the
// clock is warm, which timer times samples, and how CUPTI's kernel durations and the range
// profiler's ranges become samples.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "hone/error.hpp"
#include "measure/cupti_timer.hpp"
#include "measure/profiler_timer.hpp"
#include "measure/sample_mode.hpp"
#include "measure/warm_up.hpp"

using namespace hone;

TEST_CASE("warm-up batches last about the target, at least one launch") {
    CHECK(warmup_batch(4.0) == 5);  // ceil(20 / 4)
    CHECK(warmup_batch(3.0) == 7);  // ceil(20 / 3)
    CHECK(warmup_batch(70.0) == 1);
    CHECK(warmup_batch(19.0) == 2);
    CHECK(warmup_batch(5000.0) == 1);
    CHECK(warmup_batch(0.0) == 1);  // no estimate yet
    CHECK(warmup_batch(-1.0) == 1);
    CHECK(warmup_batch(1e-6) == max_warmup_batch);
}

TEST_CASE("warm-up settles when the last two batches agree within the tolerance") {
    CHECK_FALSE(warmup_settled({}));
    CHECK_FALSE(warmup_settled({4.0}));  // one batch cannot agree with anything
    // The first batch, sized from a cold first launch, reads long; the next two agree.
    CHECK_FALSE(warmup_settled({4.6, 4.1}));
    CHECK(warmup_settled({4.6, 4.1, 4.12}));
    // Within 2% of the smaller, either way round.
    CHECK(warmup_settled({100.0, 102.0}));
    CHECK(warmup_settled({102.0, 100.0}));
    CHECK_FALSE(warmup_settled({100.0, 102.1}));
    CHECK(warmup_settled({100.0, 105.0}, 0.05));
    // Only the last two count: an early agreement followed by a jump is not settled.
    CHECK_FALSE(warmup_settled({4.0, 4.0, 5.0}));
    // No time is no agreement.
    CHECK_FALSE(warmup_settled({0.0, 0.0}));
}

TEST_CASE("the clock is warm near its peak, or on a plateau") {
    const double peak = 1980;
    CHECK_FALSE(clock_settled({}, peak));
    CHECK_FALSE(clock_settled({345}, peak));        // idle clock
    CHECK(clock_settled({345, 1200, 1950}, peak));  // within 3% of the peak
    CHECK(clock_settled({1930}, peak));             // already warm: one probe
    CHECK_FALSE(clock_settled({1900}, peak));       // 4% short: not yet
    // Held at 1755 MHz (power): three probes within 1% are the working clock.
    CHECK_FALSE(clock_settled({1200, 1755, 1760}, peak));
    CHECK(clock_settled({1200, 1755, 1760, 1752}, peak));
    CHECK_FALSE(clock_settled({1500, 1600, 1700}, peak));  // still ramping
    // Without a known peak, only the plateau counts.
    CHECK_FALSE(clock_settled({1980}, 0));
    CHECK(clock_settled({1980, 1979, 1981}, 0));
}

TEST_CASE("timer selection: auto is the profiler where it can be, else events; cupti when asked") {
    CHECK(choose_timer("auto", true, "") == "profiler");
    CHECK(choose_timer("auto", false, "counters restricted") == "events");
    CHECK(choose_timer("cupti", true, "") == "cupti");
    CHECK(choose_timer("profiler", true, "") == "profiler");
    CHECK(choose_timer("events", true, "") == "events");
    CHECK(choose_timer("events", false, "libcupti not found") == "events");
    for (const char* asked : {"cupti", "profiler"}) {
        try {
            choose_timer(asked, false, "libcupti not found");
            FAIL("timer ", asked, " without CUPTI did not fail");
        } catch (const env_error& e) {
            CHECK(std::string(e.what()).find("libcupti not found") != std::string::npos);
            CHECK(std::string(e.what()).find("timing.timer is " + std::string(asked)) !=
                  std::string::npos);
        }
    }
}

TEST_CASE("CUPTI durations become samples: each sample the mean of its batch's launches") {
    CHECK(samples_from_durations({4100, 4200, 4000}, 1) == std::vector<double>{4.1, 4.2, 4.0});
    // Two samples of two launches each: (4000 + 4200) / 2 and (3900 + 4100) / 2 ns.
    CHECK(samples_from_durations({4000, 4200, 3900, 4100}, 2) == std::vector<double>{4.1, 4.0});
    CHECK(samples_from_durations({}, 3).empty());
    CHECK_THROWS_AS(samples_from_durations({1, 2, 3}, 2), std::logic_error);
    CHECK_THROWS_AS(samples_from_durations({1, 2}, 0), std::logic_error);
}

TEST_CASE("a profiled round's ranges: each sample's leading flush and reset ranges are skipped") {
    std::string why;
    // Two samples of [flush, reset, launch, launch].
    auto k = kernel_durations({900, 50, 4, 5, 901, 51, 6, 7}, 2, 2, 2, why);
    REQUIRE(k);
    CHECK(*k == std::vector<uint64_t>{4, 5, 6, 7});
    // A driver that gives the reset no range: [flush, launch] a sample.
    k = kernel_durations({900, 4, 901, 6, 902, 8}, 3, 1, 2, why);
    REQUIRE(k);
    CHECK(*k == std::vector<uint64_t>{4, 6, 8});
    // No flush: every range is a launch.
    k = kernel_durations({4, 5, 6}, 3, 1, 0, why);
    REQUIRE(k);
    CHECK(*k == std::vector<uint64_t>{4, 5, 6});
    // A foreign kernel's range shifts the count: the round fails, and says so.
    CHECK_FALSE(kernel_durations({900, 50, 4, 77, 901, 51, 6}, 2, 1, 2, why));
    CHECK(why == "the profiler gave 7 ranges for 6 launches");
    CHECK_FALSE(kernel_durations({4, 5, 6, 7}, 3, 1, 0, why));
    CHECK_FALSE(kernel_durations({}, 1, 1, 2, why));
}

TEST_CASE("rounds: min_samples first, then a quarter more, never past max_samples") {
    CHECK(next_round(0, 10, 100) == 10);
    CHECK(next_round(10, 10, 100) == 2);   // 10 / 4
    CHECK(next_round(40, 10, 100) == 10);  // 40 / 4
    CHECK(next_round(98, 10, 100) == 2);
    CHECK(next_round(100, 10, 100) == 0);
    CHECK(next_round(3, 10, 100) == 7);  // a cut-short first round is completed
    CHECK(next_round(2, 1, 100) == 1);   // at least one
}

TEST_CASE("rounds: what the stopping rule predicts, within a quarter and three times more") {
    CHECK(next_round(10, 10, 100, 30) == 20);    // the prediction
    CHECK(next_round(10, 10, 100, 11) == 2);     // at least a quarter more
    CHECK(next_round(10, 10, 1000, 500) == 30);  // at most three times n more
    CHECK(next_round(40, 10, 100, 500) == 60);   // never past max_samples
    CHECK(next_round(10, 10, 100, 0) == 2);      // no prediction: a quarter more
    CHECK(next_round(0, 10, 100, 80) == 10);     // min_samples come first
    CHECK(next_round(3, 10, 100, 80) == 7);
}
