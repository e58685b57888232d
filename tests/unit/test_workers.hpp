// Worker roles of the unit tests' own binary: `hone_tests --test-worker ROLE --parent PID` serves
// ROLE on fd 3 through worker_main(), as hone-worker does, so that a test can supervise scripted
// workers (a fake GPU session, a crash, a hang) that are spawned exactly as the real ones are.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "process/worker_process.hpp"
#include "worker/worker_main.hpp"

inline constexpr const char* test_worker_flag = "--test-worker";

std::vector<hone::worker_role>& test_worker_roles();

// Registers a role at static initialisation: `const test_role r("name", [](int fd, auto&) {...});`
struct test_role {
    test_role(std::string name, std::function<void(int, const hone::worker_args&)> serve) {
        test_worker_roles().push_back({std::move(name), std::move(serve)});
    }
};

// The command that starts this binary as a worker of `role`.
hone::worker_command test_worker(const std::string& role);
