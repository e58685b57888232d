// libhone_mpi.so: the MPI side of hone's message layer (src/dist/mpi_plugin_abi.h), built only
// where MPI's development files are found. Every message is bytes on MPI_COMM_WORLD under one
// tag; what they mean is hone's business (src/dist).
#include <mpi.h>

#include <climits>
#include <cstdio>

#include "dist/mpi_plugin_abi.h"

namespace {

constexpr int tag = 0x686f;  // "ho"

bool failed(int rc) {
    return rc != MPI_SUCCESS;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int hone_mpi_abi(void) {
    return HONE_MPI_ABI;
}

__attribute__((visibility("default"))) int hone_mpi_init(int* rank, int* size, int* local_rank,
                                                         int* local_size, char* err, int err_len) {
    int provided = 0;
    if (failed(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided))) {
        std::snprintf(err, static_cast<size_t>(err_len), "MPI_Init_thread failed");
        return 1;
    }
    if (provided < MPI_THREAD_SERIALIZED) {
        std::snprintf(err, static_cast<size_t>(err_len),
                      "this MPI gives thread level %d, hone needs MPI_THREAD_SERIALIZED", provided);
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    // The ranks that share this host (and its GPUs).
    MPI_Comm host;
    if (failed(
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host))) {
        std::snprintf(err, static_cast<size_t>(err_len), "MPI_Comm_split_type failed");
        return 1;
    }
    MPI_Comm_rank(host, local_rank);
    MPI_Comm_size(host, local_size);
    MPI_Comm_free(&host);
    return 0;
}

__attribute__((visibility("default"))) int hone_mpi_send(int dest, const void* data,
                                                         long long bytes) {
    if (bytes < 0 || bytes > INT_MAX) return 1;
    return failed(MPI_Send(data, static_cast<int>(bytes), MPI_BYTE, dest, tag, MPI_COMM_WORLD));
}

__attribute__((visibility("default"))) int hone_mpi_probe(int source, int* from, long long* bytes) {
    int flag = 0;
    MPI_Status st;
    if (failed(MPI_Iprobe(source < 0 ? MPI_ANY_SOURCE : source, tag, MPI_COMM_WORLD, &flag, &st)))
        return -1;
    if (!flag) return 0;
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    *from = st.MPI_SOURCE;
    *bytes = count;
    return 1;
}

__attribute__((visibility("default"))) int hone_mpi_recv(int source, void* data, long long bytes) {
    if (bytes < 0 || bytes > INT_MAX) return 1;
    return failed(MPI_Recv(data, static_cast<int>(bytes), MPI_BYTE, source, tag, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
}

__attribute__((visibility("default"))) void hone_mpi_finalize(void) {
    MPI_Finalize();
}

__attribute__((visibility("default"))) void hone_mpi_abort(int code) {
    MPI_Abort(MPI_COMM_WORLD, code);
}
}
