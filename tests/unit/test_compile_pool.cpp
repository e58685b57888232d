#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "compile/compile_pool.hpp"
#include "scoped_env.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace hone;

namespace {

compile_request kernel_request(int n, const std::string& extra = "") {
    compile_request r;
    r.source =
        fmt::format("{}\nextern \"C\" __global__ void k{}(int* x) {{ x[0] = {}; }}\n", extra, n, n);
    r.source_name = "k.cu";
    r.plain_name = fmt::format("k{}", n);
    r.options = {"--gpu-architecture=sm_90", "--ptxas-options=-v"};
    return r;
}

std::map<uint64_t, compile_result> wait_all(compile_pool& pool) {
    std::map<uint64_t, compile_result> out;
    while (auto got = pool.wait(-1)) out.emplace(got->first, std::move(got->second));
    return out;
}

}  // namespace

TEST_CASE("compile_pool with two workers answers every ticket and shares duplicates") {
    compile_pool pool(2, nullptr, 60.0);
    CHECK(pool.jobs() == 2);
    CHECK_FALSE(pool.wait(0));
    std::map<uint64_t, int> kernel_of;
    for (int n : {1, 2, 3, 1, 4, 2}) kernel_of[pool.submit(kernel_request(n))] = n;
    CHECK(pool.in_flight() == 6);
    const auto results = wait_all(pool);
    CHECK(pool.in_flight() == 0);
    REQUIRE(results.size() == 6);
    for (const auto& [ticket, r] : results) {
        INFO(r.log);
        CHECK(r.ok);
        CHECK_FALSE(r.from_cache);
        CHECK(r.lowered_name == fmt::format("k{}", kernel_of.at(ticket)));
    }
    CHECK(pool.counts().compiled == 4);
    CHECK(pool.counts().deduplicated == 2);
    CHECK(pool.counts().workers_lost == 0);
}

TEST_CASE("compile_pool answers from the cache and stores new results") {
    temp_dir dir;
    compile_cache cache(dir.path.string());
    compile_pool pool(1, &cache, 60.0);
    pool.submit(kernel_request(7));
    const auto first = wait_all(pool);
    REQUIRE(first.size() == 1);
    CHECK_FALSE(first.begin()->second.from_cache);
    const uint64_t again = pool.submit(kernel_request(7));
    const auto got = pool.wait(0);  // a hit is ready at once
    REQUIRE(got);
    CHECK(got->first == again);
    CHECK(got->second.from_cache);
    CHECK(got->second.cubin == first.begin()->second.cubin);
    CHECK(pool.counts().cache_hits == 1);
    CHECK(pool.counts().compiled == 1);
}

TEST_CASE("compile_pool compiles ahead on free workers, and a later submission uses it") {
    temp_dir dir;
    compile_cache cache(dir.path.string());
    compile_pool pool(4, &cache, 60.0);
    CHECK(pool.ahead_room(1) == 2);  // half the jobs
    CHECK(pool.ahead_room(3) == 1);  // the idle ones less the spare
    CHECK(pool.compile_ahead(kernel_request(1), 1));
    CHECK_FALSE(pool.compile_ahead(kernel_request(1), 1));  // under way
    CHECK(pool.ahead_room(1) == 1);
    CHECK(pool.in_flight() == 0);  // no ticket: wait() returns nothing of it
    CHECK_FALSE(pool.wait(0));
    // Submitted while it compiles: shares it.
    const uint64_t t1 = pool.submit(kernel_request(1));
    auto got = wait_all(pool);
    REQUIRE(got.count(t1));
    CHECK(got[t1].ok);
    // Compiled ahead to the end (ahead_room collects it into the cache), then submitted: a hit.
    CHECK(pool.compile_ahead(kernel_request(2), 1));
    const std::string key2 = kernel_request(2).cache_key();
    for (int i = 0; i < 6000 && !cache.contains(key2); ++i) {
        pool.ahead_room(1);
        ::usleep(10000);
    }
    REQUIRE(cache.contains(key2));
    CHECK_FALSE(pool.compile_ahead(kernel_request(2), 1));  // cached
    const uint64_t t2 = pool.submit(kernel_request(2));
    got = wait_all(pool);
    REQUIRE(got.count(t2));
    CHECK(got[t2].from_cache);
    CHECK(pool.counts().compiled == 2);
    CHECK(pool.counts().ahead == 2);
    CHECK(pool.counts().ahead_used == 2);
    // A submission waiting for a worker comes first: no room ahead meanwhile.
    pool.submit(kernel_request(3));
    CHECK(pool.ahead_room(0) == 0);
    CHECK_FALSE(pool.compile_ahead(kernel_request(4), 0));
    wait_all(pool);
    // Submissions do not wait for compiles ahead that nobody asked for: they get workers of
    // their own (2 ahead on a pool of 4, then 4 submitted: 6 workers).
    compile_pool busy(4, &cache, 60.0);
    CHECK(busy.compile_ahead(kernel_request(11), 0));
    CHECK(busy.compile_ahead(kernel_request(12), 0));
    CHECK(busy.ahead_room(0) == 0);  // half the jobs are ahead
    for (int n = 13; n <= 16; ++n) busy.submit(kernel_request(n));
    CHECK(wait_all(busy).size() == 4);
    CHECK(busy.counts().workers_started == 6);
    // Spare workers and a pool without cache leave no room.
    CHECK(pool.ahead_room(4) == 0);
    compile_pool uncached(3, nullptr, 60.0);
    CHECK(uncached.ahead_room(0) == 0);
    CHECK_FALSE(uncached.compile_ahead(kernel_request(5), 0));
}

TEST_CASE("compile_pool with jobs = 0 compiles inside submit") {
    compile_pool pool(0, nullptr, 60.0);
    const uint64_t t = pool.submit(kernel_request(5));
    CHECK(pool.in_flight() == 1);
    const auto got = pool.wait(0);
    REQUIRE(got);
    CHECK(got->first == t);
    CHECK(got->second.ok);
    CHECK_FALSE(pool.wait(0));
}

TEST_CASE("compile_pool survives a crashing compile worker") {
    const scoped_env crash("HONE_TEST_CRASH_MARKER", "HONE_CRASH_HERE");
    compile_pool pool(2, nullptr, 60.0);
    const uint64_t bad = pool.submit(kernel_request(1, "// HONE_CRASH_HERE"));
    const uint64_t good = pool.submit(kernel_request(2));
    auto results = wait_all(pool);
    REQUIRE(results.size() == 2);
    CHECK_FALSE(results[bad].ok);
    CHECK(results[bad].crashed);
    CHECK_FALSE(results[bad].timed_out);
    CHECK(results[bad].log.starts_with("NVRTC worker died: SIGSEGV"));
    CHECK(results[good].ok);
    CHECK(pool.counts().workers_lost == 1);
    const uint64_t after = pool.submit(kernel_request(3));
    results = wait_all(pool);
    CHECK(results[after].ok);
}

TEST_CASE("compile_pool kills a worker stuck past twice the compile deadline") {
    const scoped_env hang("HONE_TEST_HANG_MARKER", "HONE_HANG_HERE");
    compile_pool pool(1, nullptr, 0.1);
    const uint64_t stuck = pool.submit(kernel_request(1, "// HONE_HANG_HERE"));
    auto results = wait_all(pool);
    CHECK(results[stuck].timed_out);
    CHECK_FALSE(results[stuck].ok);
    CHECK(results[stuck].log.starts_with("NVRTC worker killed after 0.2 s"));
    CHECK(pool.counts().workers_lost == 1);
}

TEST_CASE("compile_pool times out a compile past its deadline") {
    compile_pool pool(1, nullptr, 1e-9);
    const uint64_t t = pool.submit(kernel_request(9));
    auto results = wait_all(pool);
    CHECK(results[t].timed_out);
    CHECK_FALSE(results[t].ok);
}

TEST_CASE("compile_pool::abandon leaves a kept pool empty, its workers and the cache filled") {
    temp_dir dir;
    compile_cache cache(dir.path.string());
    compile_pool pool(1, &cache, 60.0);
    pool.submit(kernel_request(11));  // under way in the one worker
    pool.submit(kernel_request(12));  // queued behind it
    // A run ends with both in flight: the next run must see neither.
    REQUIRE(pool.wait(0) == std::nullopt);
    pool.abandon();
    CHECK(pool.in_flight() == 0);
    CHECK_FALSE(pool.wait(0));
    // The next run's compile: the worker started for the first one serves it, after finishing
    // the abandoned compile, whose result reaches the cache and no ticket.
    const uint64_t next = pool.submit(kernel_request(13));
    const auto results = wait_all(pool);
    REQUIRE(results.size() == 1);
    CHECK(results.begin()->first == next);
    CHECK(results.begin()->second.ok);
    CHECK(pool.counts().workers_started == 1);
    CHECK(cache.get(kernel_request(11).cache_key()));
    CHECK_FALSE(cache.get(kernel_request(12).cache_key()));  // dropped before it started
    // Submitting the dropped one again compiles it.
    const uint64_t again = pool.submit(kernel_request(12));
    const auto later = wait_all(pool);
    REQUIRE(later.size() == 1);
    CHECK(later.begin()->first == again);
    CHECK(later.begin()->second.ok);
}

TEST_CASE("default_jobs is the number of online cores") {
    CHECK(default_jobs() == static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
}
