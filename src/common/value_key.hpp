// A value as a hash key. Distinct values of a parameter are counted and indexed through hash
// maps of these keys: a search of the list of values seen so far made every reader of a
// parameter of many values (10^5, 10^6: a recorded space, a database) quadratic.
#pragma once
#include <string>

#include "hone/value.hpp"

namespace hone {

// A key equal for equal values (as value's ==): the alternative, then the payload's bytes.
std::string value_key(const value& v);

}  // namespace hone
