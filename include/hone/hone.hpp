// hone's public API in one include: load a config (spec), tune it (tuner), read results
// (record, store), launch tuned kernels in an application (kernel, wisdom), errors.
#pragma once
#include "hone/device_attrs.hpp"
#include "hone/error.hpp"
#include "hone/kernel.hpp"
#include "hone/record.hpp"
#include "hone/spec.hpp"
#include "hone/store.hpp"
#include "hone/tuner.hpp"
#include "hone/wisdom.hpp"
