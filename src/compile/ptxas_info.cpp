// Reads ptxas's verbose report (--ptxas-options=-v), as NVRTC 13 prints it:
//   ptxas info    : Compiling entry function '_Z1kILi4EEvPf' for 'sm_90'
//   ptxas info    : Function properties for _Z1kILi4EEvPf
//   ptxas         .     120 bytes stack frame, 120 bytes spill stores, 120 bytes spill loads
//   ptxas info    : Used 24 registers, used 1 barriers, 120 bytes cumulative stack size, 512 bytes
//   smem
// Older releases add "N bytes cmem[0]" to the "Used" line; every cmem bank is summed.
#include <cctype>
#include <string_view>
#include <utility>
#include <vector>

#include "compile/compile.hpp"

namespace hone {
namespace {

using usage_list = std::vector<std::pair<std::string, resource_usage>>;

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// "120 bytes spill stores" -> the number, and what it counts.
void apply_part(std::string_view part, resource_usage& u) {
    const std::size_t at = part.find_first_of("0123456789");
    if (at == std::string_view::npos) return;
    long long n = 0;
    std::size_t end = at;
    for (; end < part.size() && std::isdigit(static_cast<unsigned char>(part[end])); ++end) {
        n = n * 10 + (part[end] - '0');
    }
    const std::string_view what = trim(part.substr(end));
    const int v = static_cast<int>(n);
    if (what == "registers")
        u.registers = v;
    else if (what == "bytes smem")
        u.shared_static_bytes = v;
    else if (what.starts_with("bytes cmem["))
        u.const_bytes += v;
    else if (what == "bytes stack frame")
        u.stack_bytes = v;
    else if (what == "bytes spill stores")
        u.spill_store_bytes = v;
    else if (what == "bytes spill loads")
        u.spill_load_bytes = v;
}

resource_usage& usage_of(usage_list& list, std::string_view name) {
    for (auto& [n, u] : list) {
        if (n == name) return u;
    }
    return list.emplace_back(std::string(name), resource_usage{}).second;
}

// Function named after `key` on a line: quoted ('name') or the rest of the line.
std::string_view name_after(std::string_view line, std::string_view key) {
    std::string_view rest = line.substr(line.find(key) + key.size());
    if (!rest.empty() && rest.front() == '\'') {
        rest.remove_prefix(1);
        return rest.substr(0, rest.find('\''));
    }
    return trim(rest);
}

// Usage per function in order of appearance; entry functions are listed in `entries`.
usage_list parse_all(const std::string& log, std::vector<std::string>& entries) {
    static constexpr std::string_view entry_key = "Compiling entry function ";
    static constexpr std::string_view props_key = "Function properties for ";
    usage_list list;
    std::string current;
    std::string_view rest = log;
    while (!rest.empty()) {
        const std::size_t eol = rest.find('\n');
        const std::string_view line = rest.substr(0, eol);
        rest = eol == std::string_view::npos ? std::string_view{} : rest.substr(eol + 1);
        if (!line.starts_with("ptxas")) continue;
        if (line.find(entry_key) != std::string_view::npos) {
            current = name_after(line, entry_key);
            entries.push_back(current);
            usage_of(list, current);
        } else if (line.find(props_key) != std::string_view::npos) {
            current = name_after(line, props_key);
        } else if (line.find(" bytes stack frame") != std::string_view::npos ||
                   line.find(": Used ") != std::string_view::npos) {
            resource_usage& u = usage_of(list, current);
            std::string_view parts = line;
            while (!parts.empty()) {
                const std::size_t comma = parts.find(',');
                apply_part(parts.substr(0, comma), u);
                parts =
                    comma == std::string_view::npos ? std::string_view{} : parts.substr(comma + 1);
            }
        }
    }
    return list;
}

}  // namespace

resource_usage parse_ptxas_info(const std::string& log, const std::string& function) {
    std::vector<std::string> entries;
    usage_list list = parse_all(log, entries);
    for (auto& [n, u] : list) {
        if (n == function) return u;
    }
    return {};
}

std::vector<std::string> ptxas_entry_functions(const std::string& log) {
    std::vector<std::string> entries;
    parse_all(log, entries);
    return entries;
}

resource_usage parse_ptxas_info(const std::string& log) {
    std::vector<std::string> entries;
    usage_list list = parse_all(log, entries);
    if (!entries.empty()) return usage_of(list, entries.front());
    return list.empty() ? resource_usage{} : list.front().second;
}

}  // namespace hone
