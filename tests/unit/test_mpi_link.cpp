// MPI without MPI: how a launch is detected, how a host's GPUs are shared out among its ranks,
// and what hone says (exit 3) when MPI is asked for and its plugin or library is missing.
// The message layer itself runs under mpirun in tests/mpi.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include "dist/mpi_link.hpp"
#include "temp_dir.hpp"

using namespace hone;
namespace fs = std::filesystem;

TEST_CASE("MPI: the host's GPUs shared out by local rank") {
    const std::vector<int> four{0, 1, 2, 3};
    for (int r = 0; r < 4; ++r) CHECK(local_share(four, r, 4) == std::vector<int>{r});
    CHECK(local_share({0, 1, 2, 3, 4, 5, 6, 7}, 1, 2) == std::vector<int>{1, 3, 5, 7});
    CHECK(local_share({0, 1}, 3, 4).empty());  // more ranks than GPUs: some have none
    CHECK(local_share(four, 0, 1) == four);
}

TEST_CASE("MPI: a launch is detected by the launcher's variables") {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) ::unsetenv(v);
    CHECK_FALSE(launched_by_mpi());
    ::setenv("PMI_SIZE", "4", 1);
    CHECK(launched_by_mpi());
    CHECK(launcher_world_size() == 4);
    ::unsetenv("PMI_SIZE");
    ::setenv("PMIX_RANK", "0", 1);
    CHECK(launched_by_mpi());
    CHECK(launcher_world_size() == 0);
    ::unsetenv("PMIX_RANK");
}

TEST_CASE("MPI: a rank's place on its host from the launcher's variables, before MPI starts") {
    const char* all[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
                         "MPI_LOCALRANKID", "MPI_LOCALNRANKS"};
    for (const char* v : all) ::unsetenv(v);
    CHECK_FALSE(launcher_local_rank());
    ::setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
    CHECK_FALSE(launcher_local_rank());  // a rank without the host's count is no place
    ::setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4", 1);
    CHECK(launcher_local_rank() == std::pair{2, 4});
    ::setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
    CHECK_FALSE(launcher_local_rank());  // rank 2 of 2: not believed
    for (const char* v : all) ::unsetenv(v);
    ::setenv("MPI_LOCALRANKID", "0", 1);
    ::setenv("MPI_LOCALNRANKS", "1", 1);
    CHECK(launcher_local_rank() == std::pair{0, 1});
    for (const char* v : all) ::unsetenv(v);
}

namespace {

int run(const std::string& command, const temp_dir& d, std::string& out) {
    const int status = std::system(fmt::format("{} >{} 2>&1", command, d.file("out.txt")).c_str());
    std::ifstream f(d.file("out.txt"));
    out.assign(std::istreambuf_iterator<char>(f), {});
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("MPI asked for where the plugin or MPI is missing: exit 3, saying what to do") {
    temp_dir d;
    const std::string config = std::string(HONE_SOURCE_DIR) + "/configs/vector_add.yaml";
    const std::string db = d.file("r.db");
    std::string out;

    // A hone with no plugin beside it (as built without MPI), started by mpirun.
    fs::copy_file(HONE_BINARY, d.file("hone"));
    CHECK(run(fmt::format("env -u HONE_MPI_PLUGIN OMPI_COMM_WORLD_SIZE=2 LD_LIBRARY_PATH= {} "
                          "tune {} -o {}",
                          d.file("hone"), config, db),
              d, out) == 3);
    CHECK(out.find("libhone_mpi.so was found neither") != std::string::npos);
    CHECK(out.find("libopenmpi-dev") != std::string::npos);
    CHECK(out.find("started by an MPI launcher") != std::string::npos);

    // --mpi with HONE_MPI_PLUGIN naming nothing.
    CHECK(run(fmt::format("HONE_MPI_PLUGIN={} {} tune {} --mpi -o {}", d.file("none.so"),
                          HONE_BINARY, config, db),
              d, out) == 3);
    CHECK(out.find("HONE_MPI_PLUGIN names") != std::string::npos);

    // A plugin that cannot be loaded (as when MPI's own library is missing).
    d.write("libhone_mpi.so", "not a shared object");
    CHECK(run(fmt::format("HONE_MPI_PLUGIN={} {} tune {} --mpi -o {}", d.file("libhone_mpi.so"),
                          HONE_BINARY, config, db),
              d, out) == 3);
    CHECK(out.find("could not be loaded") != std::string::npos);
    CHECK(out.find("libmpi.so.40") != std::string::npos);
    CHECK_FALSE(fs::exists(db));  // nothing was started, nothing written

    // One rank (mpirun -n 1): a plain run, no MPI needed; it goes on to read the config (here
    // an empty one: exit 2, where MPI asked for and missing would have been exit 3).
    const std::string empty = std::string(HONE_SOURCE_DIR) + "/tests/bad_inputs/empty_file.yaml";
    CHECK(run(fmt::format("OMPI_COMM_WORLD_SIZE=1 HONE_MPI_PLUGIN={} {} tune {} -o {}",
                          d.file("none.so"), HONE_BINARY, empty, db),
              d, out) == 2);
    CHECK(out.find("MPI") == std::string::npos);
    CHECK(run(fmt::format("OMPI_COMM_WORLD_SIZE=2 HONE_MPI_PLUGIN={} {} tune {} -o {}",
                          d.file("none.so"), HONE_BINARY, empty, db),
              d, out) == 3);
}
