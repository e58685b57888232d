// A fresh folder under the system's temp folder, removed with everything in it at the end.
#pragma once
#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "hone-test-XXXXXX").string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        path = tmpl;
    }
    ~temp_dir() { std::filesystem::remove_all(path); }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    std::string file(const char* name) const { return (path / name).string(); }
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(path / name) << text;
    }
};

// A file's bytes ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
