// Sets an environment variable for one scope, then puts back what was there (or unsets it).
#pragma once
#include <stdlib.h>

#include <optional>
#include <string>

struct scoped_env {
    std::string name;
    std::optional<std::string> old;
    scoped_env(const char* n, const std::string& value) : name(n) {
        if (const char* v = ::getenv(n)) old = v;
        ::setenv(n, value.c_str(), 1);
    }
    ~scoped_env() {
        if (old) {
            ::setenv(name.c_str(), old->c_str(), 1);
        } else {
            ::unsetenv(name.c_str());
        }
    }
};
