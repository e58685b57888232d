// Shards (--shard I/N): the parse and its errors, the split of keys, and sharded runs through the
// tuning pipeline (real compiles, a scripted GPU session) that merge back into the whole run.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

#include "driver/gpu.hpp"
#include "hone/error.hpp"
#include "hone/shard.hpp"
#include "hone/store.hpp"
#include "hone/tuner.hpp"
#include "measure/stats.hpp"
#include "store/merge.hpp"
#include "temp_dir.hpp"

using namespace hone;

TEST_CASE("--shard I/N: accepted forms") {
    const shard_spec s = parse_shard("2/5");
    CHECK(s.index == 2);
    CHECK(s.count == 5);
    CHECK(s.active());
    CHECK(s.text() == "2/5");
    CHECK_FALSE(parse_shard("0/1").active());  // one shard is the whole run
}

TEST_CASE("--shard: malformed or out of range is bad input that says what is expected") {
    auto message = [](const char* text) {
        try {
            parse_shard(text);
        } catch (const input_error& e) {
            CHECK(e.pos().file == "--shard");
            return e.message();
        }
        FAIL("no error for " << text);
        return std::string();
    };
    CHECK(message("3/2").find("must be below 2") != std::string::npos);
    CHECK(message("2/2").find("--array=0-1") != std::string::npos);
    CHECK(message("0/0").find("at least 1") != std::string::npos);
    CHECK(message("x").find("expected I/N") != std::string::npos);
    CHECK(message("1/x").find("number of shards N must be a whole number") != std::string::npos);
    CHECK(message("/2").find("index I must be a whole number") != std::string::npos);
    CHECK(message("-1/2").find("index I must be a whole number") != std::string::npos);
    CHECK(message("1/2/3").find("whole number") != std::string::npos);
    CHECK(message("").find("expected I/N") != std::string::npos);
}

TEST_CASE("shards: every key in exactly one shard, the parts even, the budget shared out") {
    constexpr uint32_t n = 4;
    std::map<uint32_t, int> sizes;
    for (int i = 0; i < 4000; ++i) {
        const std::string key = "BLOCK=" + std::to_string(i % 64) + ",VEC=" + std::to_string(i);
        int owners = 0;
        for (uint32_t k = 0; k < n; ++k)
            if (shard_spec{k, n}.owns_key(key)) {
                ++owners;
                ++sizes[k];
            }
        CHECK(owners == 1);
    }
    for (const auto& [k, size] : sizes) CHECK(std::abs(size - 1000) < 120);  // 4 sigma is ~110
    CHECK(shard_share(10, {0, 3}) == 4);
    CHECK(shard_share(10, {1, 3}) == 3);
    CHECK(shard_share(10, {2, 3}) == 3);
    CHECK(shard_share(2, {2, 3}) == 0);
    CHECK(shard_share(7, {0, 1}) == 7);
}

namespace {

const char* shard_kernel = R"(
extern "C" __global__ void scale(float* x, long long n) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] *= X * Y;
}
)";

// Answers each job with a median of X + Y/10 microseconds, one job at a time.
class fake_shard_session final : public gpu_session {
  public:
    explicit fake_shard_session(std::string uuid) {
        info_.attrs = nominal_device("sm_90").value();
        info_.uuid = std::move(uuid);
    }
    const device_info& device() const override { return info_; }
    bool isolated() const override { return false; }
    prepare_report prepare(const run_plan&) override { return {}; }
    job_result run(const job& j) override {
        keys.push_back(j.key);
        const auto x = std::stod(j.key.substr(j.key.find("X=") + 2));
        const auto y = std::stod(j.key.substr(j.key.find("Y=") + 2));
        job_result r;
        r.samples_us.assign(10, x + y / 10);
        r.time_us = summarize(r.samples_us);
        return r;
    }
    std::vector<std::string> keys;

  private:
    device_info info_;
};

struct sharded {
    temp_dir dir;
    explicit sharded(const std::string& search) {
        dir.write("scale.cu", shard_kernel);
        dir.write("scale.yaml",
                  "kernel: {source: scale.cu, name: scale}\n"
                  "problem: {N: 4096}\n"
                  "params: {X: [1, 2, 3, 4, 5, 6, 7, 8], Y: [1, 2, 3]}\n"
                  "buffers: {x: {type: float, count: N, role: inout}}\n"
                  "args: [x, {value: N, type: int64}]\n"
                  "launch: {grid: [\"ceil_div(N, 256)\"], block: [256]}\n"
                  "verify: {reference: {X: 1, Y: 1}}\n" +
                      search);
    }
    tune_result run(const std::string& db, shard_spec shard, const std::string& uuid = "GPU-a") {
        tune_options opt;
        opt.session = std::make_shared<fake_shard_session>(uuid);
        opt.jobs = 1;
        opt.cache_dir = dir.file("cache");
        opt.output = dir.file(db.c_str());
        opt.shard = shard;
        return tune(load_spec(dir.file("scale.yaml")), opt);
    }
};

std::set<std::string> keys_of(const std::vector<eval_record>& records) {
    std::set<std::string> out;
    for (const auto& r : records) out.insert(r.key);
    return out;
}

}  // namespace

TEST_CASE("shards of an exhaustive run: disjoint, together the whole run; merged, one run") {
    sharded t("");
    const tune_result whole = t.run("whole.db", {});
    REQUIRE(whole.records.size() == 24);
    CHECK(whole.identity.device_uuid == "GPU-a");
    std::set<std::string> seen;
    std::vector<std::string> dbs;
    for (uint32_t i = 0; i < 3; ++i) {
        const std::string db = "shard-" + std::to_string(i) + ".db";
        // Each shard on another card: the identity names the model, so that they merge.
        const tune_result r = t.run(db, {i, 3}, "GPU-" + std::to_string(i));
        CHECK(r.identity.device_uuid.empty());
        for (const auto& rec : r.records) {
            CHECK(shard_spec{i, 3}.owns_key(rec.key));
            CHECK(seen.insert(rec.key).second);  // in no other shard
        }
        CHECK(r.evaluated == r.records.size());
        // Run again: the shard resumes, and evaluates nothing.
        CHECK(t.run(db, {i, 3}, "GPU-" + std::to_string(i)).evaluated == 0);
        dbs.push_back(t.dir.file(db.c_str()));
    }
    CHECK(seen == keys_of(whole.records));

    const merge_report m = merge_databases(dbs, t.dir.file("all.db"));
    CHECK(m.runs == 1);
    CHECK(m.added == 24);
    CHECK(m.conflicts.empty());
    results_store all(t.dir.file("all.db"));
    REQUIRE(all.runs().size() == 1);
    const auto merged = all.query({});
    CHECK(keys_of(merged) == keys_of(whole.records));
    for (const auto& r : merged) CHECK(r.st == status::ok);
    CHECK(merged.front().key == whole.records.front().key);  // the same best
}

TEST_CASE("shards of a random run share the budget and sample disjoint parts") {
    sharded t("search: {strategy: random, max_evals: 10, seed: 7}\n");
    std::set<std::string> seen;
    const std::size_t expect[] = {4, 3, 3};
    for (uint32_t i = 0; i < 3; ++i) {
        const tune_result r = t.run("shard-" + std::to_string(i) + ".db", {i, 3});
        CHECK(r.evaluated == expect[i]);
        for (const auto& rec : r.records) {
            CHECK(shard_spec{i, 3}.owns_key(rec.key));
            CHECK(seen.insert(rec.key).second);
        }
    }
    CHECK(seen.size() == 10);
}

TEST_CASE("more shards than the budget: the shards left over have nothing to do") {
    sharded t("search: {strategy: random, max_evals: 2}\n");
    CHECK(t.run("s2.db", {2, 3}).evaluated == 0);
    CHECK(t.run("s0.db", {0, 3}).evaluated == 1);
}

TEST_CASE("--shard with a strategy that learns from every result is bad input") {
    sharded t("search: {strategy: annealing, max_evals: 10}\n");
    try {
        t.run("s.db", {0, 2});
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.pos().file == "--shard");
        CHECK(e.message().find("strategy annealing") != std::string::npos);
    }
}
