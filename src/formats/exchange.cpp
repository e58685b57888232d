#include "formats/exchange.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace hone {

const char* kt_failure_of(status s) {
    switch (s) {
        case status::ok:
        case status::not_converged:
            return nullptr;
        case status::compile_error:
        case status::compile_timeout:
            return "CompilationFailedConfig";
        case status::device_limits:
            return "InvalidConfig";
        case status::launch_error:
        case status::runtime_fault:
        case status::timeout:
        case status::wrong_result:
            break;
    }
    return "RuntimeFailedConfig";
}

std::optional<status> status_of_kt_failure(const std::string& failure) {
    if (failure == "CompilationFailedConfig") return status::compile_error;
    if (failure == "InvalidConfig") return status::device_limits;
    if (failure == "RuntimeFailedConfig") return status::runtime_fault;
    return std::nullopt;
}

const char* t4_invalidity_of(status s) {
    switch (s) {
        case status::ok:
        case status::not_converged:
            return "correct";
        case status::compile_error:
        case status::compile_timeout:
            return "compile";
        case status::device_limits:
            return "constraints";
        case status::wrong_result:
            return "correctness";
        case status::timeout:
            return "timeout";
        case status::launch_error:
        case status::runtime_fault:
            break;
    }
    return "runtime";
}

std::optional<status> status_of_t4_invalidity(const std::string& invalidity) {
    if (invalidity == "correct") return status::ok;
    if (invalidity == "compile") return status::compile_error;
    if (invalidity == "constraints") return status::device_limits;
    if (invalidity == "correctness") return status::wrong_result;
    if (invalidity == "timeout") return status::timeout;
    if (invalidity == "runtime") return status::runtime_fault;
    return std::nullopt;
}

std::string key_of(const param_list& params) {
    std::string out;
    for (const auto& [name, v] : params) {
        const auto* text = std::get_if<std::string>(&v);
        // As config::key: quote only strings that would make the key ambiguous.
        const bool quote = text && text->find_first_of(",=\"") != std::string::npos;
        out += fmt::format("{}{}={}", out.empty() ? "" : ",", name,
                           quote ? display_text(v) : template_text(v));
    }
    return out;
}

std::string python_text(const value& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
    const auto* d = std::get_if<double>(&v);
    if (!d) return template_text(v);
    if (std::isnan(*d)) return "nan";
    if (std::isinf(*d)) return *d > 0 ? "inf" : "-inf";
    if (*d == 0.0) return std::signbit(*d) ? "-0.0" : "0.0";
    // repr(): the shortest digits that read back; positional for decimal exponents -4 <= e <
    // 16 (a whole number keeps ".0"), else d.ddde+XX.
    char buf[64];
    const auto res =
        std::to_chars(buf, buf + sizeof buf, std::abs(*d), std::chars_format::scientific);
    const std::string sci(buf, res.ptr);  // "1.2345e+05"
    const auto at = sci.find('e');
    const int e = std::stoi(sci.substr(at + 1));
    std::string digits;
    for (char c : sci.substr(0, at))
        if (c != '.') digits += c;
    const auto n = static_cast<int>(digits.size());
    std::string out;
    if (e < -4 || e >= 16) {
        out = digits.substr(0, 1) + (n > 1 ? "." + digits.substr(1) : "") +
              fmt::format("e{}{:02d}", e < 0 ? '-' : '+', std::abs(e));
    } else if (e < 0) {
        out = "0." + std::string(static_cast<std::size_t>(-e - 1), '0') + digits;
    } else if (n <= e + 1) {
        out = digits + std::string(static_cast<std::size_t>(e + 1 - n), '0') + ".0";
    } else {
        out = digits.substr(0, static_cast<std::size_t>(e + 1)) + "." +
              digits.substr(static_cast<std::size_t>(e + 1));
    }
    return (*d < 0 ? "-" : "") + out;
}

double times_pow10(double v, int e) {
    double p = 1;
    for (int i = 0; i < std::abs(e); ++i) p *= 10;  // exact up to 10^22
    return e >= 0 ? v * p : v / p;
}

double times_pow10_reversibly(double v, int e) {
    const double out = times_pow10(v, e);
    if (times_pow10(out, -e) == v) return out;
    for (const double near : {std::nextafter(out, INFINITY), std::nextafter(out, -INFINITY)})
        if (times_pow10(near, -e) == v) return near;
    return out;
}

const char* kt_objective_of(const std::string& hone_objective) {
    if (hone_objective == "gbps") return "GB/s";
    if (hone_objective == "gflops") return "GFLOP/s";
    return "time";
}

std::optional<std::string> hone_objective_of(const std::string& kt_objective) {
    if (kt_objective == "time") return "time";
    if (kt_objective == "GB/s") return "gbps";
    if (kt_objective == "GFLOP/s") return "gflops";
    return std::nullopt;
}

}  // namespace hone
