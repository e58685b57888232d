// One run on every GPU of the machine (--devices all): every result names the GPU that
// measured it, the final word exists and comes from the first GPU, telemetry is read where
// NVML is present. With one GPU the run is an ordinary one: no final word.
#include <doctest/doctest.h>

#include <cstdio>
#include <set>

#include "gpu_test_util.hpp"
#include "hone/spec.hpp"
#include "hone/store.hpp"
#include "hone/tuner.hpp"

using namespace hone;

TEST_CASE("tune a small space on every GPU: each result names its GPU, the final word exists") {
    const std::vector<device_info> gpus = describe_devices();
    std::vector<int> all;
    for (const auto& d : gpus)
        if (d.attrs.name == gpus.front().attrs.name &&
            d.attrs.sm_count == gpus.front().attrs.sm_count &&
            d.attrs.total_mem == gpus.front().attrs.total_mem)
            all.push_back(d.ordinal);
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
