// Opening a results database safely: whatever is at the path is checked before anything is
// written, so that a foreign, damaged or newer file is refused and left exactly as it was.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <memory>
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

// A reader of a database in WAL mode makes its -wal and -shm files beside it and, read-only,
// cannot remove them when it closes: `hone show` would leave two files behind. Before a reader
// opens `path`, wal_files_absent says whether neither file is there (no connection has the
// database open); if so, remove_reader_wal_files, called once the reader has closed, removes
// them the way SQLite does: a read-write connection reads and closes and, the last connection,
// checkpoints an empty log and deletes both. Where a writer opened the database meanwhile, that
// connection is not the last and leaves them to the writer. Nothing happens where the file or
// its folder cannot be written.
bool wal_files_absent(const std::string& path);
void remove_reader_wal_files(const std::string& path);

// A reader's connection: closed, then (where `tidy`: the files were absent before it opened) its
// -wal and -shm files removed.
struct reader_closer {
    std::string path;
    bool tidy = false;
    void operator()(sqlite3* db) const;
};
using reader_ptr = std::unique_ptr<sqlite3, reader_closer>;

}  // namespace hone::store_detail
