// hone-worker: the executable libhone starts for its worker processes (worker_process.hpp,
// docs/worker-protocol.md). `hone-worker compile` serves NVRTC compiles, `hone-worker gpu`
// a GPU session, on a socket at fd 3.
#include "worker/worker_main.hpp"

int main(int argc, char** argv) {
    return hone::worker_main(argc, argv, hone::hone_worker_roles());
}
