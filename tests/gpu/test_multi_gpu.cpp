// One run on every GPU of the machine (--devices all): every result names the GPU that
// measured it, the final word exists and comes from the first GPU, telemetry is read where
// NVML is present. With one GPU the run is an ordinary one: no final word.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "gpu_test_util.hpp"
#include "hone/spec.hpp"
#include "hone/store.hpp"
#include "hone/tuner.hpp"

using namespace hone;

namespace {

// The GPUs of the first GPU's model.
std::vector<int> same_model_gpus() {
    const std::vector<device_info> gpus = describe_devices();
    std::vector<int> all;
    for (const auto& d : gpus)
        if (d.attrs.name == gpus.front().attrs.name &&
            d.attrs.sm_count == gpus.front().attrs.sm_count &&
            d.attrs.total_mem == gpus.front().attrs.total_mem)
            all.push_back(d.ordinal);
    return all;
}

}  // namespace

TEST_CASE("tune a small space on every GPU: each result names its GPU, the final word exists") {
    const std::vector<int> all = same_model_gpus();
    spec s = load_spec(source_dir() + "/tests/gpu/vector_add_small.yaml");
    s.output = "/tmp/hone_gpu_multi.db";
    std::remove(s.output.c_str());
    tune_options opt;
    opt.devices = all;
    opt.use_cache = false;
    std::vector<std::string> messages;
    opt.on_message = [&](const std::string& m) { messages.push_back(m); };
    const tune_result r = tune(s, opt);
    CAPTURE(messages.size());
    CHECK(r.evaluated == 8);
    REQUIRE(r.records.size() == 8);
    CHECK(r.dropped.empty());
    CHECK(r.devices.size() == all.size());
    std::set<std::string> uuids;
    for (const auto& d : r.devices) uuids.insert(d.uuid);
    for (const auto& rec : r.records) {
        CAPTURE(rec.key);
        CHECK(has_timing(rec.st));
        CHECK(rec.device >= 0);
        CHECK(uuids.count(rec.device_uuid) == 1);
    }
    results_store store(s.output);
    if (all.size() == 1) {
        CHECK_FALSE(r.final.has_value());
        CHECK(store.final_word(r.identity.id()).empty());
        return;
    }
    REQUIRE(r.final.has_value());
    CHECK(r.final->device == all.front());
    CHECK(r.final->entries.size() >= 3);
    CHECK_FALSE(r.final->winner().empty());
    CHECK(r.final->agreement.pairs > 0);
    CHECK(r.final->agreement.median_ratio > 0.5);
    CHECK(r.final->agreement.median_ratio < 2.0);
    const auto stored = final_word_from_json(store.final_word(r.identity.id()));
    REQUIRE(stored.has_value());
    CHECK(stored->winner() == r.final->winner());
}

TEST_CASE("three sizes on several GPUs: each size a run of its own, every GPU used") {
    const std::vector<int> all = same_model_gpus();
    if (all.size() < 2) {
        MESSAGE("one GPU: sizes run one after another, as tested elsewhere");
        return;
    }
    const std::string db = "/tmp/hone_gpu_sizes.db";
    std::remove(db.c_str());
    const run_result r = shell(
        fmt::format("cd {} && {} tune tests/gpu/vector_add_small.yaml --set N=65536,131073,262147 "
                    "--devices {} -o {} --json -q --no-cache",
                    source_dir(), binary("hone", HONE_BINARY), fmt::join(all, ","), db));
    INFO(r.out.substr(0, 2000));
    REQUIRE(r.rc == 0);
    const auto j = nlohmann::json::parse(r.out.substr(r.out.find('[')));
    REQUIRE(j.is_array());
    REQUIRE(j.size() == 3);
    std::set<int> used;
    std::set<std::string> problems;
    for (const auto& run : j) {
        CHECK(run["evaluated"] == 8);
        problems.insert(run["identity"]["problem"].dump());
        // Its team's GPUs (the GPUs dealt into three teams), then any lent to it once their
        // team had no size left.
        std::set<int> mine, measured;
        for (const auto& d : run["devices"]) mine.insert(d["ordinal"].get<int>());
        CHECK(mine.size() <= all.size());
        for (const auto& rec : run["results"]) {
            CHECK(mine.count(rec["device"].get<int>()) == 1);
            measured.insert(rec["device"].get<int>());
        }
        // Results from several GPUs have a final word from one.
        if (measured.size() > 1) CHECK_FALSE(run["final_word"].is_null());
        used.insert(measured.begin(), measured.end());
    }
    CHECK(problems.size() == 3);
    CHECK(used.size() == all.size());
}
