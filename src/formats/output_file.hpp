// Writing an output file safely: a whole file or nothing, only over a regular file, never over
// one of the command's inputs, and through a temporary file that no one else can have planted.
// Every command that writes a file the user names (-o, --wisdom, captures) goes through here.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace hone {

// Refuses (input_error, exit 2) an output `path` that exists and is not a regular file (a
// device such as /dev/null, a fifo, a folder, a socket), that is an SQLite database or
// write-ahead log (results of some run), that is an input's -wal, -shm or -journal file, or that
// is the same file as one of `inputs`: compared by device and inode, so another name, a hard
// link or a symbolic link to an input is caught too. Called before the work, so that a refusal
// costs nothing. database: the output is a results database that the command adds to (import),
// so an existing one is no refusal.
void check_output_path(const std::string& path, const std::vector<std::string>& inputs = {},
                       bool database = false);

// The bytes are written to a new temporary file beside the target (mkstemp: O_CREAT|O_EXCL with
// a random name, so a planted file or symbolic link is never opened), flushed to disk, then
// renamed over the target; an interrupted or failed write leaves no half-made file. The target
// is checked as check_output_path does (without inputs); an existing file's permissions are
// kept, a new one gets 0666 less the umask. A symbolic link at `path` is replaced by the file,
// never written through. Throws env_error when the folder cannot be written. gzip: compress
// (for a .gz name).
void write_file_atomically(const std::string& path, const std::string& bytes, bool gzip = false);

// Writes the bytes to standard output and flushes them; env_error (exit 3) when not all of them
// arrive (a full disk, a closed pipe), so that output is never lost silently.
void write_stdout(std::string_view bytes);

// After a command: flushes and closes standard output; returns the error text ("" when every
// byte arrived), for the exit code 3 of main.
std::string finish_stdout();

// The bytes gzip-compressed (one member, as gzip(1) writes).
std::string gzip_bytes(const std::string& bytes);

}  // namespace hone
