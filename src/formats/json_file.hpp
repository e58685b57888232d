// Reading JSON files that other tools wrote, plain or gzip-compressed, with errors that say
// where: a syntax error as file:line:column, a structural one with the path inside the document.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hone/error.hpp"

namespace hone {

// The file's bytes, gunzipped when they start with the gzip magic. A missing or unreadable file
// is an env_error; a damaged or truncated gzip stream, or a file larger (read or inflated) than
// max_input_bytes() (common/input_limits.hpp), is an input_error naming the file.
std::string read_maybe_gzip(const std::string& path);

// An input_error at the first array or object nested deeper than max_json_depth
// (common/input_limits.hpp); the parsers below check it first.
void check_json_depth(std::string_view text, const std::string& path);

// Parses `text` (read from `path`); a syntax error, or a number beyond a double's range, is an
// input_error at its line and column.
nlohmann::ordered_json parse_json(const std::string& text, const std::string& path);

// The same with objects as sorted maps: linear in the size of an object of many members (an
// ordered_json checks each new member against every earlier one), but member order is lost:
// object_member_keys (formats/json_locate.hpp) gives it back.
nlohmann::json parse_json_unordered(const std::string& text, const std::string& path);

// The input_error for a parse that failed `position` characters into `text` (as a SAX parser's
// parse_error reports it, `token` the last token read): a syntax error, or a number beyond a
// double's range (nlohmann's exception id 406), at its line and column.
[[noreturn]] void throw_json_error(const std::string& text, const std::string& path,
                                   std::size_t position, const std::string& token, int id,
                                   const std::string& what);

// The member names of the top-level object of `text`, in file order, read without building the
// document (the whole text is still parsed, so a syntax error anywhere is reported); nullopt
// when the top-level value is not an object.
std::optional<std::vector<std::string>> top_level_keys(const std::string& text,
                                                       const std::string& path);

// The 1-based line and column of byte `offset` in `text`.
source_pos position_in(std::string_view text, std::size_t offset, const std::string& path);

// The input_error "LABEL[i]: message" for element i of an array whose elements start at
// `offsets` in `text`, at that element's line and column (the file's start when unknown).
[[noreturn]] void throw_at_element(const std::string& text, const std::string& path,
                                   const std::vector<std::size_t>& offsets, std::size_t i,
                                   std::string_view label, const std::string& message);

}  // namespace hone
