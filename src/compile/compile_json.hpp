// JSON forms of what crosses a compile worker's socket and what the compile cache stores
// (CBOR-encoded: process/worker_process.hpp). Readers take a default for every missing field.
#pragma once
#include <nlohmann/json.hpp>

#include "compile/compile.hpp"

namespace hone {

void to_json(nlohmann::json& j, const resource_usage& v);
void from_json(const nlohmann::json& j, resource_usage& v);
void to_json(nlohmann::json& j, const compile_request& v);
void from_json(const nlohmann::json& j, compile_request& v);
void to_json(nlohmann::json& j, const compile_result& v);
void from_json(const nlohmann::json& j, compile_result& v);

}  // namespace hone
