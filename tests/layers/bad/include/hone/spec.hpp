// A fixture for the layers_detect test: a public header may not include the machinery's headers.
#pragma once
#include "search/search_domain.hpp"
