// Opening a results database safely: whatever is at the path is checked before anything is
// written, so that a foreign, damaged or newer file is refused and left exactly as it was.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace hone::store_detail {

constexpr int schema_version = 3;
constexpr int oldest_upgradable_schema = 1;
constexpr int32_t application_id = 0x686f6e65;  // "hone"

// Returns an open connection in WAL mode with the current schema; creates the database when
// the file is absent or empty. Throws env_error (naming the file and what to do) otherwise.
sqlite3* open_checked(const std::string& path);

// For the commands that only read (show, export, report, replay, ...): opened with
// SQLITE_OPEN_READONLY, so the file is never written: no schema is created, the journal mode is
// left as it is, an older schema is upgraded in a copy in memory. A path that is not a regular
// file, an empty file and a file that is not a hone database raise input_error (exit 2) naming
// the file.
sqlite3* open_read_only(const std::string& path);

}  // namespace hone::store_detail
