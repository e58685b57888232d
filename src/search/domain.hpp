// The search domain interface lives with the public headers (hone/space.hpp implements it).
#pragma once
#include "hone/domain.hpp"
