// Reading JSON files that other tools wrote, plain or gzip-compressed, with errors that say
// where: a syntax error as file:line:column, a structural one with the path inside the document.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "hone/error.hpp"

namespace hone {

// The file's bytes, gunzipped when they start with the gzip magic. A missing or unreadable file
// is an env_error; a damaged or truncated gzip stream is an input_error naming the file.
std::string read_maybe_gzip(const std::string& path);

// Parses `text` (read from `path`); a syntax error is an input_error at its line and column.
nlohmann::ordered_json parse_json(const std::string& text, const std::string& path);

// The same with objects as sorted maps: linear in the size of an object of many members (an
// ordered_json checks each new member against every earlier one), but member order is lost:
// object_member_keys (formats/json_locate.hpp) gives it back.
nlohmann::json parse_json_unordered(const std::string& text, const std::string& path);

// The 1-based line and column of byte `offset` in `text`.
source_pos position_in(const std::string& text, std::size_t offset, const std::string& path);

}  // namespace hone
