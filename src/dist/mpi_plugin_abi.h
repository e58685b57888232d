/* The C ABI between hone and libhone_mpi.so, the plugin that links MPI. hone never links MPI:
 * it loads the plugin with dlopen when a run asks for MPI, so that hone builds and runs where
 * no MPI is installed. Bump HONE_MPI_ABI on any change to these functions. */
#ifndef HONE_MPI_PLUGIN_ABI_H
#define HONE_MPI_PLUGIN_ABI_H

#define HONE_MPI_ABI 1

#ifdef __cplusplus
extern "C" {
#endif

/* HONE_MPI_ABI of the plugin. */
typedef int (*hone_mpi_abi_fn)(void);
/* MPI_Init_thread (serialized); fills this process's rank and the world's size, and its rank
 * and the number of ranks among those on its host. 0 on success, else a message in err. */
typedef int (*hone_mpi_init_fn)(int* rank, int* size, int* local_rank, int* local_size, char* err,
                                int err_len);
/* Sends `bytes` bytes to rank `dest` (blocking until the buffer may be reused). 0 on success. */
typedef int (*hone_mpi_send_fn)(int dest, const void* data, long long bytes);
/* Whether a message from `source` (-1: any rank) is waiting, without blocking: 1 and its source
 * and size, 0 when none, -1 on error. */
typedef int (*hone_mpi_probe_fn)(int source, int* from, long long* bytes);
/* Receives the waiting message of `bytes` bytes from `source`. 0 on success. */
typedef int (*hone_mpi_recv_fn)(int source, void* data, long long bytes);
/* MPI_Finalize. */
typedef void (*hone_mpi_finalize_fn)(void);
/* MPI_Abort of the whole run. */
typedef void (*hone_mpi_abort_fn)(int code);

#ifdef __cplusplus
}
#endif

#endif
