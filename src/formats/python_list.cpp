// Python list expressions of T1 "Values", evaluated without Python.
#include "formats/python_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "hone/expr.hpp"

namespace hone {
namespace {

bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

bool is_python_identifier(const std::string& s) {
    return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
           std::all_of(s.begin(), s.end(), is_name_char);
}

std::string python_to_hone(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '"' || c == '\'') {
            const std::size_t end = text.find(c, i + 1);
            const std::size_t stop = end == std::string::npos ? text.size() : end + 1;
            out += text.substr(i, stop - i);
            i = stop;
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            std::size_t j = i;
            while (j < text.size() && is_name_char(text[j])) ++j;
            const std::string word = text.substr(i, j - i);
            out += word == "True" ? "true" : word == "False" ? "false" : word;
            i = j;
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

namespace {

class python_list {
  public:
    python_list(const std::string& text, const source_pos& pos) : text_(text), pos_(pos) {}

    std::vector<value> run() {
        std::vector<value> out = sum();
        skip();
        if (at_ != text_.size()) fail(fmt::format("unexpected '{}'", text_.substr(at_, 12)));
        return out;
    }

  private:
    static constexpr std::size_t max_elements = 1'000'000;
    static constexpr int max_nesting = 200;

    [[noreturn]] void fail(const std::string& why) const {
        throw input_error(
            pos_,
            fmt::format(
                "cannot evaluate the Values expression '{}': {} (at character {}); expected a "
                "list such as [1, 2, 4], [32 * i for i in range(1, 32)] or "
                "[1] + [2 * i for i in range(1, 11)]",
                text_, why, at_ + 1));
    }
    void skip() {
        while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
    }
    bool peek(char c) {
        skip();
        return at_ < text_.size() && text_[at_] == c;
    }
    void expect(char c) {
        if (!peek(c)) fail(fmt::format("expected '{}'", c));
        ++at_;
    }
    // The keyword `w` as a whole word at the cursor; consumed when there.
    bool word(const char* w) {
        skip();
        const std::size_t n = std::strlen(w);
        if (text_.compare(at_, n, w) != 0) return false;
        if (at_ + n < text_.size() && is_name_char(text_[at_ + n])) return false;
        at_ += n;
        return true;
    }
    std::string identifier() {
        skip();
        const std::size_t start = at_;
        while (at_ < text_.size() && is_name_char(text_[at_])) ++at_;
        std::string id = text_.substr(start, at_ - start);
        if (!is_python_identifier(id)) fail("expected a name");
        return id;
    }

    // The text of one item: up to a ',' ']' or ')' outside brackets and strings, or the word
    // `for` / `if` (a comprehension's).
    std::string item() {
        skip();
        const std::size_t start = at_;
        int depth = 0;
        while (at_ < text_.size()) {
            const char c = text_[at_];
            if (c == '"' || c == '\'') {
                const std::size_t end = text_.find(c, at_ + 1);
                if (end == std::string::npos) fail("unterminated string");
                at_ = end + 1;
                continue;
            }
            if (c == '(' || c == '[') ++depth;
            if (c == ')' || c == ']') {
                if (depth == 0) break;
                --depth;
            }
            if (depth == 0 && c == ',') break;
            if (depth == 0 && (at_ == start || !is_name_char(text_[at_ - 1]))) {
                const std::size_t save = at_;
                if (word("for") || word("if")) {
                    at_ = save;
                    break;
                }
                at_ = save;
            }
            ++at_;
        }
        if (at_ == start) fail("expected a value");
        return text_.substr(start, at_ - start);
    }

    value eval(const std::string& item_text, const bindings& scope) const {
        try {
            return expression::parse(python_to_hone(item_text), pos_).eval(scope);
        } catch (const input_error& e) {
            throw input_error(pos_,
                              fmt::format("cannot evaluate '{}' in the Values expression '{}': {}",
                                          item_text, text_, e.message()));
        }
    }
    int64_t eval_int(const std::string& item_text) const {
        const value v = eval(item_text, {});
        if (const auto* i = std::get_if<int64_t>(&v)) return *i;
        throw input_error(
            pos_, fmt::format("range() takes integers, got {} in the Values expression '{}'",
                              display_text(v), text_));
    }

    std::vector<value> sum() {
        std::vector<value> out = term();
        while (peek('+')) {
            ++at_;
            std::vector<value> more = term();
            out.insert(out.end(), more.begin(), more.end());
            if (out.size() > max_elements) fail("more than 1,000,000 values");
        }
        return out;
    }

    // Every nested list, parenthesis and list() recurses through term(): bounded, as in hone's
    // expressions, so that "((((..." is refused instead of exhausting the stack.
    struct nesting {
        python_list& p;
        explicit nesting(python_list& owner) : p(owner) {
            if (++p.nesting_ > max_nesting)
                p.fail(fmt::format("lists or parentheses nested more than {} deep", max_nesting));
        }
        ~nesting() { --p.nesting_; }
    };

    std::vector<value> term() {
        const nesting guard(*this);
        if (peek('(')) {
            ++at_;
            std::vector<value> v = sum();
            expect(')');
            return v;
        }
        if (word("list")) {
            expect('(');
            std::vector<value> v = iterable();
            expect(')');
            return v;
        }
        if (word("range")) return range();
        if (!peek('[')) fail("expected a list");
        ++at_;
        std::vector<value> out;
        if (peek(']')) {
            ++at_;
            return out;
        }
        const std::string first = item();
        if (word("for")) {
            const std::string var = identifier();
            if (!word("in")) fail("expected 'in'");
            const std::vector<value> over = iterable();
            std::string condition;
            if (word("if")) condition = item();
            expect(']');
            for (const value& v : over) {
                const bindings scope{{var, v}};
                if (!condition.empty()) {
                    const value keep = eval(condition, scope);
                    const auto* b = std::get_if<bool>(&keep);
                    if (!b)
                        throw input_error(pos_,
                                          fmt::format("the condition '{}' in '{}' is not a boolean",
                                                      condition, text_));
                    if (!*b) continue;
                }
                out.push_back(eval(first, scope));
            }
            return out;
        }
        out.push_back(eval(first, {}));
        while (peek(',')) {
            ++at_;
            if (peek(']')) break;  // a trailing comma
            out.push_back(eval(item(), {}));
            if (out.size() > max_elements) fail("more than 1,000,000 values");
        }
        expect(']');
        return out;
    }

    std::vector<value> iterable() {
        if (word("range")) return range();
        return term();
    }

    // range(stop), range(start, stop), range(start, stop, step), as Python.
    std::vector<value> range() {
        expect('(');
        std::vector<int64_t> args;
        while (!peek(')')) {
            args.push_back(eval_int(item()));
            if (!peek(',')) break;
            ++at_;
        }
        expect(')');
        if (args.empty() || args.size() > 3) fail("range() takes 1 to 3 arguments");
        const int64_t start = args.size() == 1 ? 0 : args[0];
        const int64_t stop = args.size() == 1 ? args[0] : args[1];
        const int64_t step = args.size() == 3 ? args[2] : 1;
        if (step == 0) fail("range() step must not be zero");
        std::vector<value> out;
        for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
            out.push_back(i);
            if (out.size() > max_elements) fail("more than 1,000,000 values");
        }
        return out;
    }

    const std::string& text_;
    source_pos pos_;
    std::size_t at_ = 0;
    int nesting_ = 0;
};

}  // namespace

std::vector<value> eval_python_list(const std::string& text, const source_pos& pos) {
    return python_list(text, pos).run();
}

}  // namespace hone
