// Links the installed libhone.so and nothing else of hone's: loads a config and checks a sample
// of its space. The compiles run in hone-worker processes, which libhone finds in the install
// (beside the library or in the prefix's bin/), and NVRTC is found through libhone's RPATH.
//   consumer CONFIG     exit code 0 when 4 configurations compiled
#include <cstdio>
#include <hone/error.hpp>
#include <hone/spec.hpp>
#include <hone/tuner.hpp>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: consumer CONFIG\n");
        return 2;
    }
    try {
        const hone::spec s = hone::load_spec(argv[1]);
        hone::check_options opt;
        opt.arch = "sm_90";
        opt.sample = 4;
        opt.jobs = 2;  // through the compile pool: hone-worker processes
        const hone::check_result r = hone::check(s, opt);
        std::printf("consumer: %llu configurations compiled for %s by hone-worker: %llu failed\n",
                    static_cast<unsigned long long>(r.compiled), r.arch.c_str(),
                    static_cast<unsigned long long>(r.failed));
        for (const auto& [key, c] : r.results) {
            if (!c.ok) std::printf("  %s: %s\n", key.c_str(), c.log.c_str());
        }
        return r.compiled == 4 && r.failed == 0 ? 0 : 1;
    } catch (const hone::env_error& e) {
        std::printf("consumer: environment: %s\n", e.what());
        return 3;
    } catch (const std::exception& e) {
        std::printf("consumer: %s\n", e.what());
        return 1;
    }
}
