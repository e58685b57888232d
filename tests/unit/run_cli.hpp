// Runs the hone executable (HONE_BINARY) with arguments, its output captured in files of a temp
// folder: what a user at a shell would see.
#pragma once
#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "temp_dir.hpp"

struct cli_result {
    int rc = -1;
    std::string out, err;
};

inline cli_result run_cli(const temp_dir& dir, const std::string& args) {
    const std::string out = dir.file("stdout"), err = dir.file("stderr");
    const int status =
        std::system(fmt::format("{} {} >{} 2>{}", HONE_BINARY, args, out, err).c_str());
    cli_result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::stringstream a, b;
    a << std::ifstream(out).rdbuf();
    b << std::ifstream(err).rdbuf();
    r.out = a.str();
    r.err = b.str();
    return r;
}
