// What every worker role's messages share: the JSON forms of errors, binary fields, and the
// macro that defines a struct's JSON form from its field list. The messages themselves are
// their layer's: compile/compile_json.hpp, worker/protocol.hpp.
#pragma once
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <vector>

namespace hone {

// {"type": "error", "kind": "input" | "env" | "other", "message", "file", "line", "column"}:
// an exception thrown in a worker, rethrown by the supervisor with the same type and text.
nlohmann::json error_reply(const std::exception& e);
[[noreturn]] void rethrow_error(const nlohmann::json& reply);

// A json::binary field (CUBINs round-trip through CBOR as bytes, not as text); empty when the
// field is missing or not binary.
std::vector<uint8_t> binary_field(const nlohmann::json& j, const char* name);

}  // namespace hone

// Defines to_json and from_json of `type` from its field list, out of line (the header declares
// them; nlohmann's NLOHMANN_DEFINE_* macros define inline ones). A reader takes the type's
// default for every missing field. Built from nlohmann's own macro pieces.
#define HONE_JSON_FIELDS(type, ...)                                                             \
    void to_json(nlohmann::json& nlohmann_json_j, const type& nlohmann_json_t) {                \
        NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                \
    }                                                                                           \
    void from_json(const nlohmann::json& nlohmann_json_j, type& nlohmann_json_t) {              \
        const type nlohmann_json_default_obj{};                                                 \
        NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__)) \
    }
