#include "process/wire.hpp"

#include <stdexcept>
#include <string>

#include "hone/error.hpp"

namespace hone {

std::vector<uint8_t> binary_field(const nlohmann::json& j, const char* name) {
    const auto it = j.find(name);
    if (it == j.end() || !it->is_binary()) return {};
    return it->get_binary();
}

nlohmann::json error_reply(const std::exception& e) {
    nlohmann::json j = {{"type", "error"}, {"kind", "other"}, {"message", e.what()}};
    if (const auto* in = dynamic_cast<const input_error*>(&e)) {
        j["kind"] = "input";
        j["message"] = in->message();
        j["file"] = in->pos().file;
        j["line"] = in->pos().line;
        j["column"] = in->pos().column;
    } else if (dynamic_cast<const env_error*>(&e)) {
        j["kind"] = "env";
    }
    return j;
}

void rethrow_error(const nlohmann::json& reply) {
    const std::string kind = reply.value("kind", "other");
    const std::string message = reply.value("message", "worker error");
    if (kind == "input") {
        throw input_error(
            source_pos{reply.value("file", ""), reply.value("line", 0), reply.value("column", 0)},
            message);
    }
    if (kind == "env") throw env_error(message);
    throw std::runtime_error(message);
}

}  // namespace hone
