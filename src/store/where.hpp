// The --where filter: comma-separated terms `name op value` (op: = != < <= > >=), all of
// which must hold. A name is a column alias (status, median_us, gbps, gflops, regs,
// occupancy) or else a parameter. Values: true/false, numbers, or text (quote it, 'like
// this', to keep digits or commas as text). "st" is short for status.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite_util.hpp"

namespace hone::store_detail {

// SQL for "ranked and timed": the statuses with a median, as an expression over results.
const std::string& timed_sql();

struct param_term {
    std::string name;
    int column = 0;  // 1-based position of the term in the filter text
};

struct sql_filter {
    std::string sql;                 // "" or " AND (...)..." over the results table
    std::vector<sql::arg> args;      // for placeholders ?first_arg, ?first_arg+1, ...
    std::vector<param_term> params;  // parameters named, so the caller can check they exist
};

// Throws input_error at {"--where", 1, column of the bad term}; more than 256 terms are refused.
sql_filter parse_where(std::string_view text, int first_arg);

}  // namespace hone::store_detail
