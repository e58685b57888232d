// Results that another tool measured (or hone exported), read into hone's records. An imported
// run is marked by its identity's origin ("kernel_tuner cache (gemm.json.gz)"), which is part of
// the identity id: it never resumes and never mixes with a run hone measured.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "formats/exchange.hpp"
#include "formats/kt_cache.hpp"

namespace hone {

enum class import_format { automatic, t4, kt_cache };

// A file read and checked whole, whose records are made again one at a time as they are passed
// on: for a Kernel Tuner cache, memory is that of the text and one record, not of every record
// (some 1.4 KiB each as hone's records, 30 times the text). T4 files hold their records.
class checked_import {
  public:
    run_identity identity;
    std::vector<std::string> notes;  // what the import could not keep as given
    std::size_t records = 0;
    std::vector<std::size_t> by_status;  // records of each status, indexed by status

    // Calls `each` with every record, in file order.
    void each_record(const std::function<void(const eval_record&)>& each) const;

  private:
    friend checked_import check_import(const std::string& path, import_format format);
    std::string path_, text_;        // a Kernel Tuner cache's text, read again by each_record
    kt_cache header_;                // and its header, as check_import read it
    std::vector<eval_record> held_;  // T4's records
};

// Reads FILE (.json or .json.gz) whole and checks every record before returning: a file of
// another format or version, a damaged or truncated one, a missing required field or an
// unknown failure kind is an input_error naming the file and where; nothing is half-read.
checked_import check_import(const std::string& path, import_format format);

// The Kernel Tuner conversion, for tests and for callers that already hold the parsed cache
// (T4's is read_t4_text in formats/t4.hpp).
run_records from_kt_cache(const kt_cache& cache, const std::string& path);

// What check_import reads, with every record held: for tests and callers that want them all.
run_records import_file(const std::string& path, import_format format = import_format::automatic);
}  // namespace hone
