// The GPU sessions of a run, one per ordinal: how `hone tune` and tune() start them and check
// that they measure one GPU model.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "driver/gpu.hpp"

namespace hone {

// One session per ordinal, started at once (worker processes, or in this process with
// isolated = false). A device that fails to start is left out with a message to `say`, unless
// none starts: then the first failure is rethrown. input_error for an empty list or an ordinal
// named twice; see check_one_model for mixed models.
// profiler_ahead, meanwhile: as make_worker_sessions's (meanwhile runs once, also in process).
std::vector<std::shared_ptr<gpu_session>> open_gpu_sessions(
    const std::vector<int>& devices, bool isolated,
    const std::function<void(const std::string&)>& say = {}, bool profiler_ahead = true,
    const std::function<void()>& meanwhile = {});

// input_error unless every session's GPU is of one model (name, SM count, memory): results of
// different models are not one run's. Also refuses one GPU (UUID) twice.
void check_one_model(const std::vector<std::shared_ptr<gpu_session>>& sessions);
}  // namespace hone
