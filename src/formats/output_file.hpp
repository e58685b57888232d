// Writing a whole output file or nothing: the bytes go to a temporary file beside it, which is
// renamed over the target only when complete, so an interrupted or failed write leaves no
// half-made file.
#pragma once
#include <string>

namespace hone {

// Throws env_error when the folder cannot be written. gzip: compress (for a .gz name).
void write_file_atomically(const std::string& path, const std::string& bytes, bool gzip = false);

// The bytes gzip-compressed (one member, as gzip(1) writes).
std::string gzip_bytes(const std::string& bytes);

}  // namespace hone
