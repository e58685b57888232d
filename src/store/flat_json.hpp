// Fast readers and writers for the flat JSON the store writes in its columns: arrays of numbers
// (samples), objects of numbers (steps, metrics) and objects of scalars (parameters). Reading
// 10^5 records with a general JSON parser took most of a report's time, and building a JSON
// document for each column to write it took a third of an import's. Each reader returns false
// for anything it does not read exactly as nlohmann::json would (escapes, nesting, null, huge
// integers), and the caller then falls back to the general parser; each writer gives the bytes
// of nlohmann's dump() of the same values, and falls back to it itself where a name or text
// would need escaping or a UTF-8 check.
#pragma once
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hone/record.hpp"

namespace hone::store_detail {

bool read_number_array(std::string_view text, std::vector<double>& out);
bool read_number_object(std::string_view text, std::map<std::string, double>& out);
bool read_scalar_object(std::string_view text, param_list& out);

// nlohmann::json(samples).dump()
std::string number_array_text(const std::vector<double>& samples);
// nlohmann::json(numbers).dump(): members in the map's (sorted) order
std::string number_object_text(const std::map<std::string, double>& numbers);
// nlohmann::json{{name, number}, ...}.dump() of distinct names (the store's steps and telemetry
// objects): the members sorted by name.
std::string named_numbers_text(std::initializer_list<std::pair<const char*, value>> numbers);
// params_to_json(params).dump()
std::string scalar_object_text(const param_list& params);

}  // namespace hone::store_detail
