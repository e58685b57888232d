// Runs a shell command for a test: what it printed and how it exited.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

struct command_result {
    int rc = -1;         // the exit code; -1 when it did not exit (a signal) or did not start
    std::string output;  // what it wrote to stdout (and stderr, where the command redirects it)
};

inline command_result run_command(const std::string& cmd) {
    command_result r;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    std::size_t n = 0;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
    const int st = pclose(p);
    r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}
