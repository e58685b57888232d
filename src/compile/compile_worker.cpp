#include "compile/compile_worker.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "compile/compile_json.hpp"
#include "hone/error.hpp"
#include "process/wire.hpp"
#include "process/worker_process.hpp"

namespace hone {
namespace {

bool source_has_marker(const compile_request& req, const char* env_name) {
    const char* marker = std::getenv(env_name);
    return marker && *marker && req.source.find(marker) != std::string::npos;
}

nlohmann::json answer(const nlohmann::json& msg) {
    const std::string type = msg.value("type", "");
    if (type == "hello") {
        if (msg.value("version", 0) != worker_protocol_version) {
            throw env_error("compile worker: protocol version mismatch");
        }
        return {
            {"type", "hello"}, {"version", worker_protocol_version}, {"nvrtc", nvrtc_version()}};
    }
    if (type != "compile") throw env_error("compile worker: unknown message '" + type + "'");
    const auto req = msg.at("request").get<compile_request>();
    if (source_has_marker(req, "HONE_TEST_CRASH_MARKER")) std::raise(SIGSEGV);
    if (source_has_marker(req, "HONE_TEST_HANG_MARKER")) {
        for (;;) ::pause();
    }
    return {{"type", "result"}, {"result", compile_nvrtc(req, msg.value("timeout_s", 0.0))}};
}

}  // namespace

void serve_compiles(int fd) {
    while (const auto msg = read_frame(fd)) {
        nlohmann::json reply;
        try {
            reply = answer(*msg);
        } catch (const std::exception& e) {
            reply = error_reply(e);
        }
        write_frame(fd, reply);
    }
}

}  // namespace hone
