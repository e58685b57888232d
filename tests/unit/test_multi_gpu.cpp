// One run on several GPU sessions, without a GPU: real compiles, fake sessions of different
// speeds, one that faults on a configuration, one that is lost. What it checks: every
// configuration is measured once, on whichever session has room (a held-up session never
// stalls the others); every result names its GPU; a lost session's jobs go to the others and
// the run goes on; with every session lost the run stops with an env_error and keeps what it
// stored; the final word comes from the first session; mixed models are refused.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/trace.hpp"
#include "hone/device_attrs.hpp"
#include "hone/final_word.hpp"
#include "hone/spec.hpp"
#include "hone/store.hpp"
#include "hone/tuner.hpp"
#include "measure/stats.hpp"
#include "report/final_word.hpp"
#include "temp_dir.hpp"
#include "tune/diagnostics.hpp"
#include "tune/gpu_pool.hpp"
#include "tune/gpu_share.hpp"
#include "tune/sessions.hpp"
#include "tune/size_teams.hpp"

using namespace hone;

namespace {

const char* kernel_source = R"(
extern "C" __global__ void scale(float* x, long long n) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] *= X * Y;
}
)";

// 4 x 4 = 16 configurations; X*10+Y microseconds each.
const char* config_text =
    "kernel: {source: scale.cu, name: scale}\n"
    "problem: {N: 4096}\n"
    "params: {X: [1, 2, 3, 4], Y: [1, 2, 3, 4]}\n"
    "buffers: {x: {type: float, count: N, role: inout}}\n"
    "args: [x, {value: N, type: int64}]\n"
    "launch: {grid: [\"ceil_div(N, 256)\"], block: [256]}\n"
    "verify: {reference: {X: 1, Y: 1}}\n";

double time_of(const std::string& key) {
    const double x = std::stod(key.substr(key.find("X=") + 2));
    const double y = std::stod(key.substr(key.find("Y=") + 2));
    return x * 10 + y;
}

// A GPU session of its own thread: answers each job with time_of(key) * scale microseconds.
// `hold` keeps its collect() waiting until released (a slow GPU); `fault_key` answers that
// configuration with a runtime fault; `lose_after` throws env_error (a lost device) at that
// collect and after.
class fake_gpu final : public gpu_session {
  public:
    explicit fake_gpu(int ordinal, std::string name = "Fake GPU", double scale = 1.0)
        : scale_(scale) {
        info_.attrs = nominal_device("sm_90").value();
        info_.attrs.name = std::move(name);
        info_.ordinal = ordinal;
        info_.uuid = "GPU-fake-" + std::to_string(ordinal);
    }
    const device_info& device() const override { return info_; }
    bool isolated() const override { return true; }
    prepare_report prepare(const run_plan&) override {
        {
            std::lock_guard lk(m_);
            prepare_label = trace_label::current();
        }
        {
            std::unique_lock lk(m_);
            released_.wait_for(lk, std::chrono::seconds(60), [&] { return !hold_prepare; });
        }
        ++prepared;
        if (fail_prepare) throw env_error("fake prepare failed");
        return {};
    }
    job_result run(const job&) override {
        FAIL("the tuner uses submit and collect");
        return {};
    }
    std::size_t max_in_flight() const override { return 2; }
    void submit(const job& j) override {
        std::lock_guard lk(m_);
        REQUIRE(queued_.size() < 2);
        queued_.push_back(j.key);
        submitted.push_back(j.key);
    }
    // Ready once released (a held job's result is not in yet).
    bool wait_ready(double timeout_s) override {
        std::unique_lock lk(m_);
        return released_.wait_for(lk, std::chrono::duration<double>(timeout_s),
                                  [&] { return !hold; });
    }
    job_result collect() override {
        // A measurement takes a while: the jobs handed out at once spread over the sessions.
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        {
            std::unique_lock lk(m_);
            if (!released_.wait_for(lk, std::chrono::seconds(60), [&] { return !hold; }))
                ++held_out;
        }
        std::lock_guard lk(m_);
        REQUIRE_FALSE(queued_.empty());
        const std::string key = queued_.front();
        queued_.pop_front();
        if (lose_after >= 0 && collected >= lose_after) throw env_error("fake device lost");
        ++collected;
        collected_keys.push_back(key);
        job_result r;
        if (key == fault_key) {
            r.st = status::runtime_fault;
            r.message = "an illegal address (fake)";
            return r;
        }
        r.samples_us.assign(10, time_of(key) * scale_);
        r.time_us = summarize(r.samples_us);
        r.gpu_busy_s = r.gpu_span_s = 1e-5;
        r.telemetry = {1980, 40, 300};
        return r;
    }
    std::size_t held() {
        std::lock_guard lk(m_);
        return queued_.size();
    }
    void release() {
        {
            std::lock_guard lk(m_);
            hold = false;
        }
        released_.notify_all();
    }
    void release_prepare() {
        {
            std::lock_guard lk(m_);
            hold_prepare = false;
        }
        released_.notify_all();
    }

    std::vector<std::string> submitted, collected_keys;
    std::atomic<int> prepared{0};
    std::atomic<int> held_out{0};  // collects whose hold was never released (gave up waiting)
    int collected = 0;
    bool hold = false;
    bool hold_prepare = false;  // prepare() waits until release_prepare()
    int lose_after = -1;
    int delay_ms = 5;
    bool fail_prepare = false;
    std::string fault_key;
    std::string prepare_label;  // the trace label of the thread that prepared it

  private:
    device_info info_;
    double scale_;
    std::mutex m_;
    std::condition_variable released_;
    std::deque<std::string> queued_;
};

struct fixture {
    temp_dir dir;
    tune_options opt;
    std::vector<std::string> messages;
    fixture() {
        dir.write("scale.cu", kernel_source);
        dir.write("scale.yaml", config_text);
        opt.jobs = 2;
        opt.cache_dir = dir.file("cache");
        opt.output = dir.file("results.db");
        opt.on_message = [this](const std::string& m) { messages.push_back(m); };
    }
    // Loads the config and compiles its space into the cache (a first run, on one session,
    // into another database), so that the runs under test hand out jobs as fast as the
    // sessions take them.
    spec load() {
        const spec s = load_spec(dir.file("scale.yaml"));
        if (!compiled) {
            tune_options first = opt;
            first.output = dir.file("first.db");
            auto one = std::make_shared<fake_gpu>(0);
            one->delay_ms = 0;
            first.sessions = {one};
            REQUIRE(tune(s, first).evaluated == 16);
            compiled = true;
        }
        return s;
    }
    bool compiled = false;
};

std::size_t count_device(const std::vector<eval_record>& records, int device) {
    std::size_t n = 0;
    for (const auto& r : records) n += r.device == device ? 1 : 0;
    return n;
}

}  // namespace

TEST_CASE("several GPUs: each configuration measured once, by whichever GPU has room") {
    fixture f;
    const spec s = f.load();
    auto fast = std::make_shared<fake_gpu>(0);
    auto slow = std::make_shared<fake_gpu>(1);
    slow->hold = true;  // holds what it is given until the fast GPU has done all the rest
    f.opt.sessions = {fast, slow};
    std::size_t stored = 0;
    f.opt.on_result = [&](const eval_record&) {
        // All but the (at most two) jobs the slow GPU was given, submitted or waiting in its
        // slot while it measures, are stored: the fast GPU has done the rest.
        if (++stored + slow->max_in_flight() >= 16) slow->release();
    };
    const tune_result r = tune(s, f.opt);
    slow->release();
    CHECK_FALSE(r.interrupted);
    CHECK(r.evaluated == 16);
    CHECK(fast->prepared == 1);
    CHECK(slow->prepared == 1);
    // The slow GPU's jobs (at most the two it takes at once) never held up the others: the
    // rest all went to the fast one. (The sessions' own counts include the final word's.)
    CHECK(count_device(r.records, 1) <= 2);
    CHECK(count_device(r.records, 0) + count_device(r.records, 1) == 16);
    REQUIRE(r.records.size() == 16);
    std::set<std::string> keys;
    for (const auto& rec : r.records) {
        CAPTURE(rec.key);
        keys.insert(rec.key);
        CHECK(rec.st == status::ok);
        REQUIRE((rec.device == 0 || rec.device == 1));
        CHECK(rec.device_uuid == "GPU-fake-" + std::to_string(rec.device));
        CHECK(rec.gpu.telemetry.sm_clock_mhz == 1980);
    }
    CHECK(keys.size() == 16);
    CHECK(r.measured_by.at(0) == count_device(r.records, 0));
    REQUIRE(r.devices.size() == 2);
    CHECK(r.dropped.empty());
}

TEST_CASE("several GPUs: a job given to a GPU that is measuring reaches it at once") {
    auto a = std::make_shared<fake_gpu>(0);
    auto b = std::make_shared<fake_gpu>(1);
    a->hold = b->hold = true;  // neither finishes a job until released
    gpu_pool pool({a, b}, nullptr);
    // Jobs 0 and 2 go to GPU 0 (the most room, then the first), job 1 to GPU 1; job 2 comes
    // while GPU 0's thread waits for job 0's result.
    for (uint64_t i = 0; i < 3; ++i) {
        job j;
        j.key = fmt::format("k{}", i);
        pool.submit(i, j);
        if (i == 0)
            for (int w = 0; w < 3000 && a->held() < 1; ++w)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // Both of GPU 0's jobs are handed to its session before the first result is in: the second
    // waits in the session (measured next), not in the pool until the first is done.
    for (int w = 0; w < 3000 && a->held() < 2; ++w)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(a->held() == 2);
    CHECK(b->held() == 1);
    a->release();
    b->release();
    std::set<uint64_t> tags;
    for (int i = 0; i < 3; ++i) {
        const auto d = pool.wait();
        REQUIRE(d);
        REQUIRE(d->result);
        tags.insert(d->tag);
        CHECK(d->slot == (d->tag == 1 ? 1u : 0u));
    }
    CHECK(tags.size() == 3);
}

TEST_CASE("several GPUs: the final word comes from the first GPU's interleaved rounds") {
    fixture f;
    const spec s = f.load();
    auto ref = std::make_shared<fake_gpu>(0);
    auto other = std::make_shared<fake_gpu>(1, "Fake GPU", 1.1);  // reads everything 10% long
    f.opt.sessions = {ref, other};
    tune_diagnostics diag;
    f.opt.diagnostics = &diag;
    const tune_result r = tune(s, f.opt);
    CHECK(r.evaluated == 16);
    REQUIRE(r.final.has_value());
    CHECK(diag.time.final_word_s > 0);  // its own line of the time split
    CHECK(diag.time.final_word_s <= diag.time.wall_s);
    const final_word& w = *r.final;
    CHECK(w.device == 0);
    CHECK(w.device_uuid == "GPU-fake-0");
    CHECK(w.devices == std::vector<int>{0, 1});
    // Every sample is exact, so no interval overlaps the best's: the minimum of three finalists.
    REQUIRE(w.entries.size() == final_min);
    CHECK(w.winner() == "X=1,Y=1");
    CHECK(w.entries[1].key == "X=1,Y=2");
    CHECK(w.entries[2].key == "X=1,Y=3");
    for (const auto& e : w.entries) {
        CAPTURE(e.key);
        CHECK(e.st == status::ok);
        CHECK_FALSE(e.tie);
        CHECK(e.time_us.median == doctest::Approx(time_of(e.key)));
        CHECK(e.time_us.n == 10u * final_rounds);  // the rounds' samples pooled
        REQUIRE(e.others.size() == 1);
        CHECK(e.others[0].device == 1);
        CHECK(e.others[0].median_us == doctest::Approx(time_of(e.key) * 1.1));
    }
    CHECK(w.agreement.pairs == 3);
    CHECK(w.agreement.median_ratio == doctest::Approx(1.1));
    CHECK(w.agreement.min == doctest::Approx(1.1));
    // The reference GPU measured each finalist final_rounds more times, forward then reversed.
    const std::vector<std::string> tail(ref->collected_keys.end() - 3 * final_rounds,
                                        ref->collected_keys.end());
    CAPTURE(fmt::format("{}", fmt::join(tail, " ")));
    // (in the search's order, which the other GPU's long readings may have changed; every
    // finalist's places over the rounds sum to the same)
    const std::set<std::string> finalists(tail.begin(), tail.begin() + 3);
    CHECK(finalists == std::set<std::string>{"X=1,Y=1", "X=1,Y=2", "X=1,Y=3"});
    for (std::size_t round = 1; round < final_rounds; ++round)
        for (std::size_t k = 0; k < 3; ++k)
            CHECK(tail[3 * round + k] == tail[round % 2 == 0 ? k : 2 - k]);
    // Stored with the run: show and wisdom read it back.
    results_store store(f.opt.output);
    const auto stored = final_word_from_json(store.final_word(r.identity.id()));
    REQUIRE(stored.has_value());
    CHECK(stored->winner() == "X=1,Y=1");
    CHECK(stored->agreement.median_ratio == doctest::Approx(1.1));
    CHECK(final_word_text(*stored).find("winner") != std::string::npos);

    // Resumed with nothing new to measure: the stored final word stands, measured again by no one.
    const std::size_t before = ref->collected_keys.size();
    diag = {};
    const tune_result again = tune(s, f.opt);
    CHECK(diag.time.final_word_s == 0);
    CHECK(again.evaluated == 0);
    CHECK(ref->collected_keys.size() == before);
    REQUIRE(again.final.has_value());
    CHECK(again.final->winner() == "X=1,Y=1");
}

TEST_CASE("several GPUs: a fault costs its configuration on its GPU, nothing more") {
    fixture f;
    const spec s = f.load();
    auto a = std::make_shared<fake_gpu>(0);
    auto b = std::make_shared<fake_gpu>(1);
    a->fault_key = b->fault_key = "X=2,Y=3";
    f.opt.sessions = {a, b};
    const tune_result r = tune(s, f.opt);
    CHECK(r.evaluated == 16);
    CHECK(r.dropped.empty());
    int faults = 0;
    for (const auto& rec : r.records) {
        if (rec.st == status::runtime_fault) {
            ++faults;
            CHECK(rec.key == "X=2,Y=3");
            CHECK(rec.device >= 0);
        } else {
            CHECK(rec.st == status::ok);
        }
    }
    CHECK(faults == 1);
}

TEST_CASE("several GPUs: a lost GPU is dropped, its jobs go to the others, the run goes on") {
    fixture f;
    const spec s = f.load();
    auto a = std::make_shared<fake_gpu>(0);
    auto b = std::make_shared<fake_gpu>(1);
    auto c = std::make_shared<fake_gpu>(2);
    b->lose_after = 1;  // measures one configuration, then its device is gone
    f.opt.sessions = {a, b, c};
    const tune_result r = tune(s, f.opt);
    CHECK_FALSE(r.interrupted);
    CHECK(r.evaluated == 16);
    REQUIRE(r.records.size() == 16);
    for (const auto& rec : r.records) CHECK(rec.st == status::ok);
    CHECK(count_device(r.records, 1) == 1);
    CHECK(count_device(r.records, 0) + count_device(r.records, 2) == 15);
    REQUIRE(r.dropped.size() == 1);
    CHECK(r.dropped[0].find("GPU 1") != std::string::npos);
    CHECK(r.dropped[0].find("fake device lost") != std::string::npos);
    REQUIRE_FALSE(f.messages.empty());
    CHECK(f.messages[0].find("dropped") != std::string::npos);
    CHECK(f.messages[0].find("goes on") != std::string::npos);
    // The final word still comes, from the first GPU, with the one left beside it.
    REQUIRE(r.final.has_value());
    CHECK(r.final->device == 0);
    for (const auto& e : r.final->entries) {
        REQUIRE(e.others.size() == 1);
        CHECK(e.others[0].device == 2);
    }
}

TEST_CASE("several GPUs: when every GPU is lost the run stops, and what it stored stays") {
    fixture f;
    const spec s = f.load();
    auto a = std::make_shared<fake_gpu>(0);
    auto b = std::make_shared<fake_gpu>(1);
    a->lose_after = 2;
    b->lose_after = 3;
    f.opt.sessions = {a, b};
    CHECK_THROWS_WITH_AS(tune(s, f.opt), doctest::Contains("every GPU of the run was dropped"),
                         env_error);
    results_store store(f.opt.output);
    const auto kept = store.query({});
    CHECK(kept.size() == 5);
    for (const auto& rec : kept) CHECK(rec.st == status::ok);
}

TEST_CASE("gpu_share: a GPU lent to a run joins it while it searches; its results count") {
    fixture f;
    const spec s = f.load();
    auto own = std::make_shared<fake_gpu>(0);
    auto lent = std::make_shared<fake_gpu>(1);
    own->hold = true;    // holds its first jobs until the lent GPU has stored a result
    gpu_share share(0);  // a final word that costs nothing: every GPU lent is worth it
    CHECK(share.lend({lent}) == lend_answer::not_open);  // no run open yet: nothing lent
    CHECK(lent->prepared == 0);
    f.opt.sessions = {own};
    f.opt.share = &share;
    f.opt.on_result = [&](const eval_record& r) {
        if (r.device == 1) own->release();
    };
    std::atomic<bool> lent_ok{false};
    std::thread lender([&] {
        for (int w = 0; w < 60000 && !share.is_open(); ++w)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        lent_ok = share.lend({lent}) == lend_answer::lent;
    });
    const tune_result r = [&] {
        const trace_label label("N=4096");
        return tune(s, f.opt);
    }();
    lender.join();
    own->release();
    CHECK(lent_ok);
    // The lent GPU prepared in a thread of its own, whose marks carry the run's label.
    CHECK(lent->prepare_label == "N=4096");
    CHECK(own->prepare_label == "N=4096");
    // The lent GPU got work once prepared, while the run's own GPU still held its jobs (not
    // only after a result came back).
    CHECK(own->held_out == 0);
    CHECK_FALSE(share.is_open());  // closed when the search ended
    CHECK(share.lend({lent}) == lend_answer::not_open);
    CHECK(r.evaluated == 16);
    CHECK(lent->prepared == 1);  // with the run's plan, once
    REQUIRE(r.records.size() == 16);
    std::set<std::string> keys;
    for (const auto& rec : r.records) keys.insert(rec.key);
    CHECK(keys.size() == 16);
    CHECK(count_device(r.records, 1) > 0);
    CHECK(count_device(r.records, 0) + count_device(r.records, 1) == 16);
    REQUIRE(r.devices.size() == 2);
    CHECK(r.devices[1].uuid == "GPU-fake-1");
    // Results from two GPUs: the final word, from the run's own GPU, where the finalists came
    // from both (otherwise their ranking already is one card's).
    std::set<std::string> cards;
    for (const eval_record* rec : finalists(r.records, stored_rank_by(r.identity)))
        cards.insert(rec->device_uuid);
    CHECK(r.final.has_value() == (cards.size() > 1));
    if (r.final) CHECK(r.final->device == 0);
}

TEST_CASE("gpu_share: a lent GPU whose results are none of the finalists adds no final word") {
    fixture f;
    const spec s = f.load();
    auto own = std::make_shared<fake_gpu>(0);
    // Ten times slower: its 110-440 us never rank above the run's own GPU's 11-44 us.
    auto lent = std::make_shared<fake_gpu>(1, "Fake GPU", 10.0);
    own->hold = true;    // holds its first jobs until the lent GPU has stored a result
    gpu_share share(0);  // a final word that costs nothing: every GPU lent is worth it
    f.opt.sessions = {own};
    f.opt.share = &share;
    f.opt.on_result = [&](const eval_record& r) {
        if (r.device == 1) own->release();
    };
    std::thread lender([&] {
        for (int w = 0; w < 60000 && !share.is_open(); ++w)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        CHECK(share.lend({lent}) == lend_answer::lent);
    });
    const tune_result r = tune(s, f.opt);
    lender.join();
    own->release();
    REQUIRE(r.records.size() == 16);
    CHECK(count_device(r.records, 1) > 0);
    REQUIRE(count_device(r.records, 0) >= final_min);
    for (const eval_record* rec : finalists(r.records, stored_rank_by(r.identity)))
        CHECK(rec->device == 0);
    CHECK_FALSE(r.final.has_value());
}

TEST_CASE("gpu_share: a run open to lending that gets no GPU is a one-GPU run") {
    fixture f;
    const spec s = f.load();
    auto own = std::make_shared<fake_gpu>(0);
    gpu_share share;
    f.opt.sessions = {own};
    f.opt.share = &share;
    const tune_result r = tune(s, f.opt);
    CHECK(r.evaluated == 16);
    CHECK(count_device(r.records, 0) == 16);
    CHECK(r.devices.size() == 1);
    CHECK_FALSE(r.final.has_value());  // one GPU measured: no final word
    CHECK_FALSE(share.is_open());
}

TEST_CASE("gpu_share: a run on one GPU declines a GPU that would cost it a final word") {
    // 16 evaluations on one GPU: a second GPU saves at most 8 evaluations' time, a final word
    // costs final_rounds x final_max = 16.
    CHECK(gpu_share::default_final_word_cost() == final_rounds * final_max);
    CHECK_FALSE(worth_lending(16, 1, 1, false, 24));
    CHECK_FALSE(worth_lending(48, 1, 1, false, 24));  // saves 24: level
    CHECK(worth_lending(49, 1, 1, false, 24));
    CHECK(worth_lending(37, 1, 2, false, 24));  // saves 37 x 2/3 > 24
    CHECK_FALSE(worth_lending(36, 1, 2, false, 24));
    CHECK(worth_lending(1, 1, 1, true, 24));  // its final word is due anyway
    CHECK(worth_lending(1, 2, 1, false, 24));
    CHECK_FALSE(worth_lending(0, 2, 1, true, 24));  // nothing left
    CHECK_FALSE(worth_lending(100, 1, 0, false, 24));

    fixture f;
    const spec s = f.load();
    auto own = std::make_shared<fake_gpu>(0);
    auto lent = std::make_shared<fake_gpu>(1);
    own->hold = true;  // holds its first jobs until the lender has had its answer
    gpu_share share;
    f.opt.sessions = {own};
    f.opt.share = &share;
    std::atomic<int> answer{-1};
    std::thread lender([&] {
        for (int w = 0; w < 60000 && !share.is_open(); ++w)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        answer = static_cast<int>(share.lend({lent}));
        own->release();
    });
    const tune_result r = tune(s, f.opt);
    lender.join();
    CHECK(answer == static_cast<int>(lend_answer::declined));
    CHECK(lent->prepared == 0);
    CHECK(r.evaluated == 16);
    CHECK(count_device(r.records, 0) == 16);
    CHECK_FALSE(r.final.has_value());
}

TEST_CASE("gpu_share: a lent GPU asks again once prepared, and is set aside near the end") {
    // The run's own GPU, and two GPUs lent while 40 evaluations were left (a final word of 16
    // is worth 40 x 1/2 = 20); one is prepared once 10 are left, when it would save 5.
    gpu_pool pool({std::make_shared<fake_gpu>(0)}, {}, true);
    pool.prepare(run_plan{});
    gpu_share share(16);
    share.open(pool, 40, false);
    // Lends g while the run is open, lets the run move on (`meanwhile`), then lets s prepare,
    // and waits until it takes jobs or is set aside.
    const auto lend_held = [&](const std::shared_ptr<fake_gpu>& g, auto meanwhile) {
        g->hold_prepare = true;
        const std::size_t ready = pool.ready_count();
        REQUIRE(share.lend({g}) == lend_answer::lent);
        meanwhile();
        g->release_prepare();
        const std::size_t slot = pool.size() - 1;
        for (int w = 0; w < 60000 && pool.live(slot) && pool.ready_count() == ready; ++w)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        CHECK(g->prepared == 1);
    };
    auto late = std::make_shared<fake_gpu>(1);
    lend_held(late, [&] { share.progress(10, false); });
    CHECK_FALSE(pool.live(1));
    CHECK(pool.ready_count() == 1);
    CHECK(pool.live_count() == 1);
    CHECK(pool.dropped().empty());  // set aside, not failed: nothing to report
    CHECK(pool.capacity() == 2);    // the own GPU's two in flight only
    // Still one GPU to the lending rule: another GPU with 10 left is declined, not lent.
    CHECK(share.lend({std::make_shared<fake_gpu>(4)}) == lend_answer::declined);
    CHECK(pool.size() == 2);

    // Prepared while the run still has 40 left: it takes jobs.
    share.progress(40, false);
    auto early = std::make_shared<fake_gpu>(2);
    lend_held(early, [] {});
    CHECK(pool.live(2));
    CHECK(pool.ready_count() == 2);
    CHECK(pool.capacity() == 4);
    for (uint64_t tag = 0; tag < 4; ++tag) pool.submit(tag, job{"X=1,Y=1", {}, false, 10.0});
    for (int i = 0; i < 4; ++i) CHECK(pool.wait()->result.has_value());
    CHECK(late->submitted.empty());
    CHECK_FALSE(early->submitted.empty());

    // Prepared after the search ended (closed): set aside too.
    auto after = std::make_shared<fake_gpu>(3);
    lend_held(after, [&] { share.close(); });
    CHECK_FALSE(pool.live(3));
    CHECK(pool.ready_count() == 2);
}

TEST_CASE("gpu_pool: a GPU that joins and fails to prepare is dropped; the others go on") {
    auto a = std::make_shared<fake_gpu>(0);
    auto bad = std::make_shared<fake_gpu>(1);
    bad->fail_prepare = true;
    std::vector<std::string> said;
    std::mutex said_m;
    gpu_pool pool(
        {a},
        [&](const std::string& m) {
            std::lock_guard lk(said_m);
            said.push_back(m);
        },
        true);
    CHECK_THROWS_AS(pool.join(bad), std::logic_error);  // before prepare: no plan to join with
    pool.prepare(run_plan{});
    pool.join(bad);
    for (int w = 0; w < 60000 && pool.live_count() == 2; ++w)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(pool.size() == 2);
    CHECK(pool.live_count() == 1);
    CHECK(pool.capacity() == a->max_in_flight());
    REQUIRE(pool.dropped().size() == 1);
    CHECK(pool.dropped()[0].find("fake prepare failed") != std::string::npos);
    job j;
    j.key = "X=1,Y=1";
    pool.submit(0, j);
    const auto d = pool.wait();
    REQUIRE(d);
    REQUIRE(d->result);
    CHECK(d->slot == 0);
}

TEST_CASE("size teams: a team out of sizes lends its GPUs to the run still searching") {
    // Two teams of one GPU, two sizes: team 0 takes size 0 (the heavier), team 1 size 1, which
    // ends at once; team 1 then joins size 0's run, which ends only once it has two GPUs.
    auto g0 = std::make_shared<fake_gpu>(0);
    auto g1 = std::make_shared<fake_gpu>(1);
    size_teams_job job;
    job.teams = {{g0}, {g1}};
    job.order = {0, 1};
    job.weight = {2, 1};
    std::size_t joined = 0;
    job.run = [&](std::size_t i, const session_list& team, gpu_share& share) {
        if (i == 1) return;
        gpu_pool pool(team, nullptr, true);
        pool.prepare(run_plan{});
        share.open(pool, 1000, false);
        for (int w = 0; w < 60000 && pool.size() < 2; ++w)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        share.close();
        joined = pool.size();
    };
    std::map<std::size_t, std::vector<int>> gpus;
    job.ended = [&](std::size_t i, const std::vector<int>& g) { gpus[i] = g; };
    run_size_teams(job);
    CHECK(joined == 2);
    CHECK(gpus[0] == std::vector<int>{0, 1});
    CHECK(gpus[1] == std::vector<int>{1});
    CHECK(g1->prepared == 1);  // in size 0's run (size 1's stub prepares nothing)

    // A run that throws: the error comes back once every team is back; no size is lost silently.
    job.run = [&](std::size_t i, const session_list&, gpu_share&) {
        if (i == 1) throw env_error("size 1 failed");
    };
    gpus.clear();
    CHECK_THROWS_WITH_AS(run_size_teams(job), doctest::Contains("size 1 failed"), env_error);
    CHECK(gpus.count(1) == 0);
}

TEST_CASE("size teams: a team passes over a run it would not shorten and lends to another") {
    // Three teams of one GPU, three sizes. Size 2 ends at once; its team looks first at size 1
    // (heavier), whose 10 evaluations left are not worth a final word, then lends to size 0.
    // Team 0, out of sizes when size 0 ends, is declined by size 1 too and stops.
    auto g0 = std::make_shared<fake_gpu>(0);
    auto g1 = std::make_shared<fake_gpu>(1);
    auto g2 = std::make_shared<fake_gpu>(2);
    size_teams_job job;
    job.teams = {{g0}, {g1}, {g2}};
    job.order = {0, 1, 2};
    job.weight = {1, 2, 1};
    std::atomic<bool> size0_done{false};
    std::size_t joined0 = 0, joined1 = 0;
    job.run = [&](std::size_t i, const session_list& team, gpu_share& share) {
        if (i == 2) return;
        gpu_pool pool(team, nullptr, true);
        pool.prepare(run_plan{});
        share.open(pool, i == 0 ? 1000 : 10, false);
        for (int w = 0; w < 60000 && (i == 0 ? pool.size() < 2 : !size0_done); ++w)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        share.close();
        (i == 0 ? joined0 : joined1) = pool.size();
        if (i == 0) size0_done = true;
    };
    std::map<std::size_t, std::vector<int>> gpus;
    job.ended = [&](std::size_t i, const std::vector<int>& g) { gpus[i] = g; };
    run_size_teams(job);
    CHECK(joined0 == 2);
    CHECK(joined1 == 1);
    CHECK(gpus[0] == std::vector<int>{0, 2});
    CHECK(gpus[1] == std::vector<int>{1});
    CHECK(g2->prepared == 1);  // in size 0's run
    CHECK(g0->prepared == 1);  // in its own run only: never in size 1's
}

TEST_CASE("several GPUs: GPUs of different models, or one GPU twice, are refused") {
    fixture f;
    const spec s = load_spec(f.dir.file("scale.yaml"));
    f.opt.sessions = {std::make_shared<fake_gpu>(0), std::make_shared<fake_gpu>(1, "Other GPU")};
    CHECK_THROWS_WITH_AS(tune(s, f.opt), doctest::Contains("GPUs of different models in one run"),
                         input_error);
    f.opt.sessions = {std::make_shared<fake_gpu>(0), std::make_shared<fake_gpu>(0)};
    CHECK_THROWS_WITH_AS(tune(s, f.opt), doctest::Contains("is in the run twice"), input_error);
    CHECK_THROWS_WITH_AS(open_gpu_sessions({}, true), doctest::Contains("no GPU given"),
                         input_error);
    CHECK_THROWS_WITH_AS(open_gpu_sessions({0, 1, 0}, true), doctest::Contains("named twice"),
                         input_error);
}

TEST_CASE("final word: finalists are the best's ties, at least final_min, at most final_max") {
    auto rec = [](const std::string& key, double median, double half) {
        eval_record r;
        r.key = key;
        r.st = status::ok;
        r.gpu.time_us.median = median;
        r.gpu.time_us.ci_low = median - half;
        r.gpu.time_us.ci_high = median + half;
        r.gpu.time_us.n = 10;
        return r;
    };
    std::vector<eval_record> records;
    // Clear gaps: the minimum, best first.
    for (int i = 0; i < 6; ++i) records.push_back(rec("k" + std::to_string(i), 10.0 + i, 0.1));
    auto keys = [](const std::vector<const eval_record*>& v) {
        std::vector<std::string> out;
        for (const auto* r : v) out.push_back(r->key);
        return out;
    };
    CHECK(keys(finalists(records, rank_by::time)) == std::vector<std::string>{"k0", "k1", "k2"});
    // Wide intervals: every tie, up to the cap.
    records.clear();
    for (int i = 0; i < 12; ++i)
        records.push_back(rec("k" + std::to_string(i + 10), 10.0 + 0.01 * i, 1.0));
    CHECK(finalists(records, rank_by::time).size() == final_max);
    // Fewer timed records than the minimum: all of them; failures never.
    records = {rec("a", 5, 0.1)};
    eval_record failed = rec("b", 1, 0.1);
    failed.st = status::runtime_fault;
    records.push_back(failed);
    CHECK(keys(finalists(records, rank_by::time)) == std::vector<std::string>{"a"});
    CHECK(finalists({}, rank_by::time).empty());
}

TEST_CASE("final word: decide ranks by objective and marks ties; agreement quantiles") {
    final_word w;
    auto entry = [](const std::string& key, double median, double half, status st = status::ok) {
        final_entry e;
        e.key = key;
        e.st = st;
        e.time_us.median = median;
        e.time_us.ci_low = median - half;
        e.time_us.ci_high = median + half;
        e.objective = median;
        return e;
    };
    w.entries = {entry("c", 12, 0.5), entry("a", 10, 0.5), entry("x", 1, 0, status::timeout),
                 entry("b", 10.8, 0.5)};
    decide(w);
    CHECK(w.winner() == "a");
    CHECK(w.entries[1].key == "b");
    CHECK(w.entries[1].tie);
    CHECK(w.entries[2].key == "c");
    CHECK_FALSE(w.entries[2].tie);
    CHECK(w.entries[3].key == "x");  // untimed last
    CHECK_FALSE(w.entries[3].tie);

    const gpu_agreement a = summarize_agreement({1.0, 1.02, 0.98, 1.01, 0.0, 1.05});
    CHECK(a.pairs == 5);  // the 0 (no timing) left out
    CHECK(a.median_ratio == doctest::Approx(1.01));
    CHECK(a.min == doctest::Approx(0.98));
    CHECK(a.max == doctest::Approx(1.05));
    CHECK(a.p10 >= a.min);
    CHECK(a.p90 <= a.max);
    CHECK(summarize_agreement({}).pairs == 0);

    // A round trip through the stored text.
    w.device = 2;
    w.devices = {2, 0};
    w.agreement = a;
    const auto back = final_word_from_json(to_json_text(w));
    REQUIRE(back.has_value());
    CHECK(back->device == 2);
    CHECK(back->devices == std::vector<int>{2, 0});
    CHECK(back->winner() == "a");
    CHECK(back->entries[1].tie);
    CHECK(back->entries[3].st == status::timeout);
    CHECK(back->agreement.pairs == 5);
    CHECK_FALSE(final_word_from_json("").has_value());
    CHECK_THROWS_AS(final_word_from_json("{\"entries\": 3}"), env_error);
}

TEST_CASE("trace labels: a thread's marks carry the innermost label, restored on exit") {
    CHECK(trace_label::current().empty());
    {
        const trace_label outer("N=1024");
        CHECK(trace_label::current() == "N=1024");
        {
            const trace_label inner("N=2048");
            CHECK(trace_label::current() == "N=2048");
        }
        CHECK(trace_label::current() == "N=1024");
        std::string other = "unset";
        std::thread([&] { other = trace_label::current(); }).join();
        CHECK(other.empty());  // per thread: a new thread starts without one
    }
    CHECK(trace_label::current().empty());
}
