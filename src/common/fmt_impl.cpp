// fmt's compiled part (what libfmt holds), built once into libhone. Debian ships libfmt only as
// a shared library, which hone's self-contained executables must not need at run time; fmt's
// header-only mode instead compiles and optimises format-inl.h in every file that formats,
// about 3.5 s of CPU a file at -O3 (three quarters of a typical file's compile). For an fmt
// other than 9.x, whose list of instantiations may differ from the one below, the build uses
// fmt header-only (FMT_HEADER_ONLY) and this file compiles to nothing (third_party/deps.cmake).
#ifndef FMT_HEADER_ONLY
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

// The templates that format.h declares, or uses, without defining them outside
// format-inl.h: instantiated here for the character types fmt's own library builds.
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void buffer<wchar_t>::append(const wchar_t*, const wchar_t*);
template FMT_API void vformat_to(buffer<char>&, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);

}  // namespace detail
FMT_END_NAMESPACE
#endif
