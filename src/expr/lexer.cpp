#include "expr/lexer.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "expr/node.hpp"

namespace hone::expr_detail {
namespace {

bool is_ident_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
    return is_ident_start(c) || std::isdigit(static_cast<unsigned char>(c));
}
bool is_digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

class lexer {
  public:
    lexer(std::string_view text, const source_pos& pos) : text_(text), pos_(pos) {}

    std::vector<token> run() {
        std::vector<token> out;
        while (true) {
            while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_])))
                ++at_;
            if (at_ == text_.size()) break;
            out.push_back(next());
        }
        token end;
        end.offset = static_cast<int>(text_.size());
        out.push_back(end);
        return out;
    }

  private:
    [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
        throw input_error(pos_at(pos_, static_cast<int>(offset)), message);
    }

    token next() {
        const char c = text_[at_];
        if (is_digit(c) || (c == '.' && at_ + 1 < text_.size() && is_digit(text_[at_ + 1])))
            return number();
        if (is_ident_start(c)) return word();
        if (c == '"' || c == '\'') return string_literal();
        return punct();
    }

    token make(token_kind kind, std::size_t start) const {
        token t;
        t.kind = kind;
        t.offset = static_cast<int>(start);
        t.text = std::string(text_.substr(start, at_ - start));
        return t;
    }

    token number() {
        const std::size_t start = at_;
        bool is_real = false;
        while (at_ < text_.size() && is_digit(text_[at_])) ++at_;
        if (at_ < text_.size() && text_[at_] == '.') {
            is_real = true;
            ++at_;
            while (at_ < text_.size() && is_digit(text_[at_])) ++at_;
        }
        if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
            is_real = true;
            ++at_;
            if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
            if (at_ == text_.size() || !is_digit(text_[at_]))
                fail(start, "malformed number: expected digits after 'e'");
            while (at_ < text_.size() && is_digit(text_[at_])) ++at_;
        }
        if (at_ < text_.size() && is_ident_char(text_[at_]))
            fail(start, fmt::format("malformed number '{}'", text_.substr(start, at_ + 1 - start)));
        token t = make(token_kind::literal, start);
        const char* first = text_.data() + start;
        const char* last = text_.data() + at_;
        if (is_real) {
            double d = 0;
            const auto r = std::from_chars(first, last, d);
            if (r.ec != std::errc() || !std::isfinite(d))
                fail(start, fmt::format("real literal {} is out of range", t.text));
            t.literal = d;
        } else {
            int64_t i = 0;
            const auto r = std::from_chars(first, last, i);
            if (r.ec != std::errc())
                fail(start,
                     fmt::format("integer literal {} is out of range (max 9223372036854775807)",
                                 t.text));
            t.literal = i;
        }
        return t;
    }

    token word() {
        const std::size_t start = at_;
        while (at_ < text_.size() && is_ident_char(text_[at_])) ++at_;
        token t = make(token_kind::ident, start);
        if (t.text == "true" || t.text == "false") {
            t.kind = token_kind::literal;
            t.literal = t.text == "true";
        } else if (t.text == "and" || t.text == "or" || t.text == "not") {
            t.kind = token_kind::punct;  // Python's spelling of && || !
        }
        return t;
    }

    token string_literal() {
        const std::size_t start = at_;
        const char quote = text_[at_++];
        std::string s;
        while (at_ < text_.size() && text_[at_] != quote) {
            if (text_[at_] == '\\' && at_ + 1 < text_.size())
                ++at_;  // \" and \\ keep the next char
            s += text_[at_++];
        }
        if (at_ == text_.size())
            fail(start, fmt::format("unterminated string: expected a closing {}", quote));
        ++at_;
        token t = make(token_kind::literal, start);
        t.literal = std::move(s);
        return t;
    }

    token punct() {
        static constexpr std::string_view two[] = {"<=", ">=", "==", "!=", "&&",
                                                   "||", "//", "**", "<<", ">>"};
        const std::size_t start = at_;
        for (auto p : two) {
            if (text_.substr(at_, 2) == p) {
                at_ += 2;
                return make(token_kind::punct, start);
            }
        }
        constexpr std::string_view one = "()?:,+-*/%!<>&|^~";
        if (one.find(text_[at_]) == std::string_view::npos) {
            const unsigned char c = static_cast<unsigned char>(text_[at_]);
            fail(start, std::isprint(c) ? fmt::format("unexpected character '{}'", text_[at_])
                                        : fmt::format("unexpected byte 0x{:02x}", c));
        }
        ++at_;
        return make(token_kind::punct, start);
    }

    std::string_view text_;
    const source_pos& pos_;
    std::size_t at_ = 0;
};

}  // namespace

std::vector<token> lex(std::string_view text, const source_pos& pos) {
    return lexer(text, pos).run();
}

}  // namespace hone::expr_detail
