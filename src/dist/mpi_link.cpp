#include "dist/mpi_link.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "common/clock.hpp"
#include "dist/mpi_plugin_abi.h"
#include "hone/error.hpp"

namespace hone {

namespace fs = std::filesystem;

struct mpi_link::api {
    hone_mpi_abi_fn abi = nullptr;
    hone_mpi_init_fn init = nullptr;
    hone_mpi_send_fn send = nullptr;
    hone_mpi_probe_fn probe = nullptr;
    hone_mpi_recv_fn recv = nullptr;
    hone_mpi_finalize_fn finalize = nullptr;
    hone_mpi_abort_fn abort = nullptr;
};

namespace {

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

constexpr const char* plugin_name = "libhone_mpi.so";
constexpr const char* build_hint =
    "this hone was built without MPI: build it where OpenMPI's development files are installed "
    "(Debian: apt-get install libopenmpi-dev openmpi-bin), which builds libhone_mpi.so beside "
    "hone, or set HONE_MPI_PLUGIN to that file";

}  // namespace

bool launched_by_mpi() {
    return env("OMPI_COMM_WORLD_SIZE") || env("PMI_SIZE") || env("PMIX_RANK");
}

int launcher_world_size() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
        if (const char* v = env(name)) return std::atoi(v);
    return 0;
}

std::optional<std::pair<int, int>> launcher_local_rank() {
    const std::pair<const char*, const char*> names[] = {
        {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
        {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"}};  // OpenMPI; MPICH's Hydra
    for (const auto& [rank, size] : names) {
        const char* r = env(rank);
        const char* n = env(size);
        if (!r || !n) continue;
        const int ri = std::atoi(r), ni = std::atoi(n);
        if (ni >= 1 && ri >= 0 && ri < ni) return std::pair{ri, ni};
    }
    return std::nullopt;
}

std::vector<std::string> mpi_plugin_candidates() {
    if (const char* given = env("HONE_MPI_PLUGIN")) return {given};
    std::vector<std::string> out;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path dir = exe.parent_path();
        for (const fs::path& p : {dir / plugin_name, dir / ".." / "lib" / plugin_name,
                                  dir / ".." / "lib" / "hone" / plugin_name})
            out.push_back(p.lexically_normal().string());
    }
    out.emplace_back(plugin_name);  // the library path
    return out;
}

std::shared_ptr<mpi_link> mpi_link::open(const std::string& why) {
    std::shared_ptr<mpi_link> link(new mpi_link());
    const auto candidates = mpi_plugin_candidates();
    std::string load_error;
    for (const auto& path : candidates) {
        const bool named = path.find('/') != std::string::npos;
        std::error_code ec;
        if (named && !fs::exists(path, ec)) continue;
        // GLOBAL: MPI loads components of its own that expect its symbols to be global.
        link->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (link->handle_) break;
        const char* e = dlerror();
        // Present but not loadable (MPI's own library missing): say so, not "not found".
        if (named || (e && std::string(e).find(plugin_name) == std::string::npos)) {
            load_error = e ? e : "dlopen failed";
            break;
        }
    }
    if (!link->handle_) {
        if (!load_error.empty())
            throw env_error(fmt::format(
                "MPI was asked for ({}), but {} could not be loaded: {}. MPI's library (OpenMPI "
                "4: libmpi.so.40) must be on the library path: load the site's MPI module, or "
                "install OpenMPI (Debian: apt-get install openmpi-bin)",
                why, plugin_name, load_error));
        if (env("HONE_MPI_PLUGIN"))
            throw env_error(
                fmt::format("MPI was asked for ({}), but HONE_MPI_PLUGIN names {}, "
                            "which does not exist",
                            why, candidates.front()));
        std::string looked;
        for (const auto& c : candidates)
            if (c.find('/') != std::string::npos) looked += (looked.empty() ? "" : ", ") + c;
        throw env_error(
            fmt::format("MPI was asked for ({}), but {} was found neither in {} nor "
                        "on the library path: {}",
                        why, plugin_name, looked, build_hint));
    }
    auto a = std::make_unique<api>();
    auto sym = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(link->handle_, name));
        if (!fn)
            throw env_error(
                fmt::format("{} lacks {}: it is not hone's MPI plugin, or of "
                            "another hone: {}",
                            plugin_name, name, build_hint));
    };
    sym(a->abi, "hone_mpi_abi");
    if (a->abi() != HONE_MPI_ABI)
        throw env_error(
            fmt::format("{} is of another hone (plugin ABI {}, this hone's {}): use "
                        "the plugin built with this hone",
                        plugin_name, a->abi(), HONE_MPI_ABI));
    sym(a->init, "hone_mpi_init");
    sym(a->send, "hone_mpi_send");
    sym(a->probe, "hone_mpi_probe");
    sym(a->recv, "hone_mpi_recv");
    sym(a->finalize, "hone_mpi_finalize");
    sym(a->abort, "hone_mpi_abort");
    char err[256] = {};
    if (a->init(&link->rank_, &link->size_, &link->local_rank_, &link->local_size_, err,
                sizeof err) != 0)
        throw env_error(fmt::format("MPI did not start ({}): {}", why, err));
    link->api_ = std::move(a);
    return link;
}

mpi_link::~mpi_link() {
    if (api_) api_->finalize();
    // The plugin stays loaded: MPI may keep threads running code of its libraries.
}

void mpi_link::send(int dest, const nlohmann::json& message) {
    const std::vector<uint8_t> bytes = nlohmann::json::to_cbor(message);
    std::lock_guard lock(m_);
    if (api_->send(dest, bytes.data(), static_cast<long long>(bytes.size())) != 0)
        throw env_error(fmt::format("MPI: sending {} bytes to rank {} failed", bytes.size(), dest));
}

std::optional<std::pair<int, nlohmann::json>> mpi_link::receive(int source, double timeout_s) {
    const auto t0 = steady_clock::now();
    for (int idle = 0;; ++idle) {
        {
            std::lock_guard lock(m_);
            int from = -1;
            long long bytes = 0;
            const int got = api_->probe(source, &from, &bytes);
            if (got < 0) throw env_error("MPI: probing for messages failed");
            if (got == 1) {
                std::vector<uint8_t> buf(static_cast<std::size_t>(bytes));
                if (api_->recv(from, buf.data(), bytes) != 0)
                    throw env_error(fmt::format("MPI: receiving from rank {} failed", from));
                return std::pair{from, nlohmann::json::from_cbor(buf)};
            }
        }
        if (timeout_s >= 0 && seconds_since(t0) >= timeout_s) return std::nullopt;
        // Spin briefly (a result is often a few microseconds away), then poll gently.
        if (idle < 200)
            sched_yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

void mpi_link::abort(int code) {
    api_->abort(code);
    std::_Exit(code);
}

std::vector<int> local_share(const std::vector<int>& ordinals, int local_rank, int local_size) {
    std::vector<int> out;
    if (local_size < 1) return ordinals;
    for (std::size_t i = 0; i < ordinals.size(); ++i)
        if (static_cast<int>(i % static_cast<std::size_t>(local_size)) == local_rank)
            out.push_back(ordinals[i]);
    return out;
}

}  // namespace hone
