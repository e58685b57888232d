#include "store/where.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "hone/error.hpp"
#include "hone/status.hpp"

namespace hone::store_detail {
namespace {

constexpr int max_where_terms = 256;

enum class lit_kind { text, number, boolean };

struct literal {
    std::string text;
    sql::arg value;
    lit_kind kind = lit_kind::text;
};

// Column aliases: NULL where the quantity is undefined, so that no comparison holds there
// (a compile error has no median; "median_us<10" must not list it).
std::optional<std::string> numeric_alias(std::string_view name) {
    if (name == "median_us") return fmt::format("CASE WHEN {} THEN median END", timed_sql());
    if (name == "gbps") return "NULLIF(gbps, 0)";
    if (name == "gflops") return "NULLIF(gflops, 0)";
    if (name == "regs") {
        return "CASE WHEN num_regs >= 0 THEN num_regs WHEN ptx_regs >= 0 THEN ptx_regs END";
    }
    if (name == "occupancy") return "CASE WHEN active_blocks_per_sm >= 0 THEN occupancy END";
    return std::nullopt;
}

std::string status_names() {
    std::string out;
    // status::timeout is the last status in status.hpp.
    for (int i = 0; i <= static_cast<int>(status::timeout); ++i) {
        out += fmt::format("{}{}", out.empty() ? "" : ", ", status_name(static_cast<status>(i)));
    }
    return out;
}

literal classify(std::string text) {
    if (text == "true" || text == "false") {
        const int64_t b = text == "true" ? 1 : 0;  // json_extract gives booleans as 1 and 0
        return {std::move(text), b, lit_kind::boolean};
    }
    const char* first = text.data();
    const char* last = first + text.size();
    int64_t i = 0;
    if (auto [p, ec] = std::from_chars(first, last, i); ec == std::errc() && p == last) {
        return {std::move(text), i, lit_kind::number};
    }
    double d = 0;
    if (auto [p, ec] = std::from_chars(first, last, d); ec == std::errc() && p == last) {
        return {std::move(text), d, lit_kind::number};
    }
    return {text, text, lit_kind::text};
}

bool is_name_char(char c, bool first) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (!first && c >= '0' && c <= '9');
}

class parser {
  public:
    parser(std::string_view text, int first_arg) : t_(text), next_arg_(first_arg) {}

    sql_filter parse() {
        skip_ws();
        if (at_end()) return {};
        int terms = 0;
        do {
            // SQLite allows 32,766 parameters and bounds a statement's depth: far more terms
            // would fail there with the whole statement in the message.
            if (++terms > max_where_terms) {
                term_col_ = static_cast<int>(i_) + 1;
                fail(fmt::format("a filter holds at most {} terms; this is term {}",
                                 max_where_terms, terms));
            }
        } while (term());
        return std::move(out_);
    }

  private:
    std::string_view t_;
    std::size_t i_ = 0;
    int next_arg_;
    int term_col_ = 1;
    sql_filter out_;

    [[noreturn]] void fail(const std::string& what) const {
        throw input_error(source_pos{"--where", 1, term_col_}, what);
    }
    bool at_end() const { return i_ >= t_.size(); }
    void skip_ws() {
        while (!at_end() && (t_[i_] == ' ' || t_[i_] == '\t')) ++i_;
    }

    // Parses one term and the comma after it; false at the end of the text.
    bool term() {
        skip_ws();
        term_col_ = static_cast<int>(i_) + 1;
        if (at_end() || t_[i_] == ',')
            fail("empty term: expected `name op value`, e.g. BLOCK>=256");
        const std::string n = name();
        skip_ws();
        const std::string o = op(n);
        skip_ws();
        literal v = value(o);
        emit(n, o == "==" ? "=" : o, v);
        skip_ws();
        if (at_end()) return false;
        if (t_[i_] != ',') {
            fail(
                fmt::format("unexpected '{}' after the value: separate terms with commas", t_[i_]));
        }
        ++i_;
        return true;
    }

    std::string name() {
        const std::size_t start = i_;
        while (!at_end() && is_name_char(t_[i_], i_ == start)) ++i_;
        if (i_ == start) fail("expected a parameter or column name at the start of the term");
        return std::string(t_.substr(start, i_ - start));
    }

    std::string op(const std::string& n) {
        // "==" as in the config's expressions means "=".
        for (const char* o : {"==", "<=", ">=", "!=", "=", "<", ">"}) {
            if (t_.substr(i_).starts_with(o)) {
                i_ += std::string_view(o).size();
                return o;
            }
        }
        fail(fmt::format("expected an operator (= == != < <= > >=) after {}", n));
    }

    literal value(const std::string& o) {
        if (!at_end() && (t_[i_] == '\'' || t_[i_] == '"')) {
            const std::size_t close = t_.find(t_[i_], i_ + 1);
            if (close == std::string_view::npos) fail("unterminated quote in the value");
            std::string text(t_.substr(i_ + 1, close - i_ - 1));
            i_ = close + 1;
            return {text, text, lit_kind::text};
        }
        std::size_t end = std::min(t_.find(',', i_), t_.size());
        const std::size_t next = end;
        while (end > i_ && (t_[end - 1] == ' ' || t_[end - 1] == '\t')) --end;
        if (end == i_) fail(fmt::format("expected a value after {}", o));
        std::string text(t_.substr(i_, end - i_));
        if (text.find_first_of("=<>!") == 0)
            fail(fmt::format("'{}{}' is not an operator: expected one of = == != < <= > >=", o,
                             text.substr(0, text.find_first_not_of("=<>!"))));
        i_ = next;
        return classify(std::move(text));
    }

    std::string bind(const sql::arg& a) {
        out_.args.push_back(a);
        return fmt::format("?{}", next_arg_++);
    }

    void emit(const std::string& n, const std::string& o, const literal& v) {
        std::string cond;
        if (n == "status" || n == "st") {
            const auto s = parse_status(v.text);
            if (!s)
                fail(
                    fmt::format("unknown status '{}': expected one of {}", v.text, status_names()));
            if (o != "=" && o != "!=") fail(fmt::format("{} compares with = or != only", n));
            cond = fmt::format("status {} {}", o, bind(std::string(status_name(*s))));
        } else if (const auto expr = numeric_alias(n)) {
            if (v.kind != lit_kind::number) {
                fail(fmt::format("{} compares with a number, not '{}'", n, v.text));
            }
            cond = fmt::format("({}) {} {}", *expr, o, bind(v.value));
        } else {
            const std::string path = bind(fmt::format("$.\"{}\"", n));
            cond = fmt::format("json_extract(params, {}) {} {}", path, o, bind(v.value));
            out_.params.push_back({n, term_col_});
        }
        out_.sql += fmt::format(" AND ({})", cond);
    }
};

}  // namespace

const std::string& timed_sql() {
    static const std::string text = fmt::format("status IN ('{}', '{}')", status_name(status::ok),
                                                status_name(status::not_converged));
    return text;
}

sql_filter parse_where(std::string_view text, int first_arg) {
    return parser(text, first_arg).parse();
}

}  // namespace hone::store_detail
