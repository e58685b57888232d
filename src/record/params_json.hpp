// Parameters as JSON, for the store, the JSON outputs and the formats. Kept out of the public
// headers: applications get no third-party JSON type from hone.
#pragma once
#include <nlohmann/json.hpp>

#include "hone/record.hpp"

namespace hone {

// Parameters as a JSON object, in order and typed (2 stays an integer, 2.0 a real), so that the
// store and JSON reports give back exactly the values that were tuned.
nlohmann::ordered_json params_to_json(const param_list& params);
// Throws env_error when `j` is not an object of scalars (a damaged or foreign store).
param_list params_from_json(const nlohmann::ordered_json& j);

}  // namespace hone
