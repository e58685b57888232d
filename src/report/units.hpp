// Duration units shared by every report: one unit per number, chosen from its magnitude.
#pragma once
#include <string>

namespace hone::report_detail {

struct duration_unit {
    double per_us = 1;  // units in a microsecond
    const char* name = "µs";
    int decimals = 1;  // three significant digits at this magnitude
};

duration_unit unit_for(double us);
// The number alone, in `u` ("78.8"): used for a median and its CI bounds alike.
std::string in_unit(double us, const duration_unit& u);

}  // namespace hone::report_detail
