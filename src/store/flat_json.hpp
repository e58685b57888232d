// Fast readers for the flat JSON the store writes in its columns: arrays of numbers (samples),
// objects of numbers (steps, metrics) and objects of scalars (parameters). Reading 10^5 records
// with a general JSON parser took most of a report's time. Each returns false for anything it
// does not read exactly as nlohmann::json would (escapes, nesting, null, huge integers), and
// the caller then falls back to the general parser.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hone/record.hpp"

namespace hone::store_detail {

bool read_number_array(std::string_view text, std::vector<double>& out);
bool read_number_object(std::string_view text, std::map<std::string, double>& out);
bool read_scalar_object(std::string_view text, param_list& out);

}  // namespace hone::store_detail
