// Where things are in a JSON text, for errors that point at a record and for the order of an
// object's members when it was parsed into a sorted map: the text is scanned once more (strings
// and nesting only, no values).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace hone {

// Byte offsets of the elements of the array under the top-level object's `key`; empty when the
// text is not an object with such an array. Assumes `text` is valid JSON (parse it first).
std::vector<std::size_t> array_element_offsets(const std::string& text, const std::string& key);

// The same, with where the array opens and closes (npos, npos and no items when there is none).
struct array_items {
    std::size_t open = std::string::npos, close = std::string::npos;
    std::vector<std::size_t> items;
};
array_items array_items_of(const std::string& text, const std::string& key);

// The text of item i of `span` (found in `text`), without the comma and spaces after it: for
// parsing a long array one element at a time.
std::string_view array_item_text(const std::string& text, const array_items& span, std::size_t i);

// The member names of the object under the top-level object's `key`, decoded, in the order of
// the text; empty when there is no such object. Assumes `text` is valid JSON.
std::vector<std::string> object_member_keys(const std::string& text, const std::string& key);

// The members of the top-level object, in the order of the text: each name, decoded, and the
// offset where its value starts; nullopt when the text does not open with an object. Exact for
// valid JSON, and a scan of the bytes (strings and nesting), not a parse: for other text it
// finds what it finds, and only a parser can say what is wrong.
struct json_member {
    std::string name;
    std::size_t value = 0;
};
std::optional<std::vector<json_member>> top_level_members(const std::string& text);

}  // namespace hone
