// Whether the CUDA driver library loads on this machine: the tests that expect hone to refuse GPU
// work without a driver (and to do it where there is one) ask this first.
#pragma once
#include <dlfcn.h>

inline bool driver_installed() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) dlclose(lib);
    return lib != nullptr;
}
