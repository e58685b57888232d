#include "formats/json_locate.hpp"

#include <cctype>
#include <nlohmann/json.hpp>

namespace hone {
namespace {

// Index just past the string that starts at text[i] == '"'.
std::size_t skip_string(const std::string& text, std::size_t i) {
    for (++i; i < text.size(); ++i) {
        if (text[i] == '\\') {
            ++i;
        } else if (text[i] == '"') {
            return i + 1;
        }
    }
    return text.size();
}

std::size_t skip_space(const std::string& text, std::size_t i) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    return i;
}

// Where the value of the top-level object's member `key` starts; npos when there is none.
std::size_t member_value(const std::string& text, const std::string& key) {
    const std::string quoted = nlohmann::json(key).dump();
    int depth = 0;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '"') {
            const std::size_t end = skip_string(text, i);
            const std::size_t colon = skip_space(text, end);
            // A key of the top-level object: the string is followed by a colon.
            if (depth == 1 && colon < text.size() && text[colon] == ':' &&
                text.compare(i, end - i, quoted) == 0)
                return skip_space(text, colon + 1);
            i = end;
            continue;
        }
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') --depth;
        ++i;
    }
    return std::string::npos;
}

// Offsets of the items directly inside the container that opens at text[open] ('[' or '{'):
// for an array its elements, for an object its members' names; `close` gets the offset of the
// closing bracket.
std::vector<std::size_t> items_of(const std::string& text, std::size_t open,
                                  std::size_t* close = nullptr) {
    std::vector<std::size_t> out;
    if (close) *close = std::string::npos;
    int inner = 0;
    bool expect = true;
    for (std::size_t j = open + 1; j < text.size(); ++j) {
        j = skip_space(text, j);
        if (j >= text.size()) break;
        const char d = text[j];
        if (inner == 0 && (d == ']' || d == '}')) {
            if (close) *close = j;
            break;
        }
        if (expect) {
            out.push_back(j);
            expect = false;
        }
        if (d == '"') {
            j = skip_string(text, j) - 1;
        } else if (d == '{' || d == '[') {
            ++inner;
        } else if (d == '}' || d == ']') {
            --inner;
        } else if (d == ',' && inner == 0) {
            expect = true;
        }
    }
    return out;
}

}  // namespace

std::vector<std::size_t> array_element_offsets(const std::string& text, const std::string& key) {
    const std::size_t at = member_value(text, key);
    if (at >= text.size() || text[at] != '[') return {};
    return items_of(text, at);
}

array_items array_items_of(const std::string& text, const std::string& key) {
    array_items out;
    const std::size_t at = member_value(text, key);
    if (at >= text.size() || text[at] != '[') return out;
    out.open = at;
    out.items = items_of(text, at, &out.close);
    return out;
}

std::vector<std::string> object_member_keys(const std::string& text, const std::string& key) {
    const std::size_t at = member_value(text, key);
    if (at >= text.size() || text[at] != '{') return {};
    std::vector<std::string> out;
    for (std::size_t k : items_of(text, at)) {
        if (text[k] != '"') break;  // not valid JSON: the parser has said so already
        out.push_back(
            nlohmann::json::parse(text.substr(k, skip_string(text, k) - k)).get<std::string>());
    }
    return out;
}

std::optional<std::vector<json_member>> top_level_members(const std::string& text) {
    std::size_t i = skip_space(text, 0);
    if (i >= text.size() || text[i] != '{') return std::nullopt;
    std::vector<json_member> out;
    int depth = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"') {
            const std::size_t end = skip_string(text, i);
            const std::size_t colon = skip_space(text, end);
            // A name of the top-level object: a string followed by a colon.
            if (depth == 1 && colon < text.size() && text[colon] == ':') {
                std::string name = text.substr(i + 1, end - i - 2);
                if (name.find('\\') != std::string::npos) {
                    try {
                        name = nlohmann::json::parse(text.substr(i, end - i)).get<std::string>();
                    } catch (const nlohmann::json::exception&) {
                        // not valid JSON: the raw text stands, and the parser will say why
                    }
                }
                out.push_back({std::move(name), skip_space(text, colon + 1)});
            }
            i = end;
            continue;
        }
        if (c == '{' || c == '[') ++depth;
        if ((c == '}' || c == ']') && --depth == 0) break;  // the top-level object's end
        ++i;
    }
    return out;
}

std::string_view array_item_text(const std::string& text, const array_items& span, std::size_t i) {
    std::size_t end = i + 1 < span.items.size() ? span.items[i + 1] : span.close;
    while (end > span.items[i] &&
           (std::isspace(static_cast<unsigned char>(text[end - 1])) || text[end - 1] == ','))
        --end;
    return std::string_view(text).substr(span.items[i], end - span.items[i]);
}

}  // namespace hone
