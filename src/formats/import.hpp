// Results that another tool measured (or hone exported), read into hone's records. An imported
// run is marked by its identity's origin ("kernel_tuner cache (gemm.json.gz)"), which is part of
// the identity id: it never resumes and never mixes with a run hone measured.
#pragma once
#include <string>

#include "formats/exchange.hpp"
#include "formats/kt_cache.hpp"

namespace hone {

enum class import_format { automatic, t4, kt_cache };

// Reads FILE (.json or .json.gz) whole and checks every record before returning: a file of
// another format or version, a damaged or truncated one, a missing required field or an
// unknown failure kind is an input_error naming the file and where; nothing is half-read.
run_records import_file(const std::string& path, import_format format = import_format::automatic);

// The Kernel Tuner conversion, for tests and for callers that already hold the parsed cache
// (T4's is read_t4_text in formats/t4.hpp).
run_records from_kt_cache(const kt_cache& cache, const std::string& path);

}  // namespace hone
