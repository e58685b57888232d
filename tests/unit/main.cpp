#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <filesystem>
#include <string_view>

#include "../worker_env.hpp"
#include "test_workers.hpp"

std::vector<hone::worker_role>& test_worker_roles() {
    static std::vector<hone::worker_role> roles;
    return roles;
}

hone::worker_command test_worker(const std::string& role) {
    return {std::filesystem::read_symlink("/proc/self/exe").string(), {test_worker_flag, role}};
}

int main(int argc, char** argv) {
    if (argc > 1 && std::string_view(argv[1]) == test_worker_flag) {
        return hone::worker_main(argc - 1, argv + 1, test_worker_roles());
    }
    use_built_worker();
    doctest::Context ctx(argc, argv);
    return ctx.run();
}
