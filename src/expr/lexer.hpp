// Splits expression text into tokens.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "hone/error.hpp"
#include "hone/value.hpp"

namespace hone::expr_detail {

enum class token_kind { literal, ident, punct, end };

struct token {
    token_kind kind = token_kind::end;
    std::string text;  // ident or punct spelling
    value literal;     // token_kind::literal: integer, real, boolean or string
    int offset = 0;
};

// Throws input_error at the offending character.
std::vector<token> lex(std::string_view text, const source_pos& pos);

}  // namespace hone::expr_detail
