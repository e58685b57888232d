// Persistent, content-addressed cache of compile results, shared by concurrent hone processes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "compile/compile.hpp"

namespace hone {

class compile_cache {
  public:
    // dir: --cache-dir, else $HONE_CACHE_DIR, else $XDG_CACHE_HOME/hone, else ~/.cache/hone.
    explicit compile_cache(std::string dir, uint64_t max_bytes = 1ull << 30);
    static std::string default_dir();

    // A hit returns the stored result (from_cache = true). A corrupted entry is removed and
    // reported as a miss, never returned.
    std::optional<compile_result> get(const std::string& key);
    // Atomic: written to a temp file then renamed. Evicts least recently used entries above
    // max_bytes. Only successful compiles are stored.
    void put(const std::string& key, const compile_result& r);
    // Whether an entry for key exists (a stat, not read or checked: get() may still miss).
    bool contains(const std::string& key) const;
    const std::string& dir() const { return dir_; }

  private:
    void evict();  // least recently used first, until the total fits max_bytes

    std::string dir_;
    uint64_t max_bytes_;
    bool estimate_known_ = false;  // estimated_bytes_ is from a scan plus later puts
    uint64_t estimated_bytes_ = 0;
    uint64_t puts_since_scan_ = 0;
};

}  // namespace hone
