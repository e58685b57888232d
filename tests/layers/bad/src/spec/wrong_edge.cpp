// A fixture for the layers_detect test: spec may not include tune.
#include "tune/internal.hpp"
