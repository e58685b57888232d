// eval_record <-> a row of the results table. The column order below is the single source of
// truth for both directions.
#pragma once
#include <cstdint>
#include <string>

#include "hone/record.hpp"
#include "store/sqlite_util.hpp"

namespace hone::store_detail {

// "key, params, ..., created_at": what read_record expects, in order, from column 0.
const std::string& record_columns();
// The same with an empty list in place of the raw samples (reading them is most of the cost).
const std::string& record_columns_without_samples();
// Inserts (or replaces) one row: ?1 is the run id, then every record column; an empty
// created_at is set to the current UTC time, or kept empty with as_given (imported records
// whose file gave no time).
const std::string& insert_record_sql(bool as_given = false);
void bind_record(sql::stmt& s, int64_t run_id, const eval_record& r);
eval_record read_record(const sql::stmt& s, const std::string& path);

}  // namespace hone::store_detail
