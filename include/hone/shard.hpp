// Shards: one run's work split ahead of time into N parts, each run by its own process (a batch
// array's task) into its own database, joined afterwards with `hone merge`. The split depends
// only on what is split, never on the order of evaluation or on what a database holds already,
// so that a shard that is re-run (resumed) does the same part.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace hone {

struct shard_spec {
    uint32_t index = 0;  // 0 .. count-1 (a Slurm array's SLURM_ARRAY_TASK_ID with --array=0-N-1)
    uint32_t count = 1;  // 1 = the whole run
    bool active() const { return count > 1; }
    // Whether item `ordinal` (a position, or shard_hash of a name) is this shard's.
    bool owns(uint64_t ordinal) const { return ordinal % count == index; }
    // A configuration by its key: by the key's hash, so that the split of a space holds for
    // any strategy order and any subset already evaluated.
    bool owns_key(std::string_view key) const;
    std::string text() const;  // "I/N"
};

// "I/N" with 0 <= I < N; throws input_error (at `where`, e.g. "--shard") otherwise.
shard_spec parse_shard(std::string_view text, const std::string& where = "--shard");

// 64-bit FNV-1a of the bytes, then splitmix64's finaliser (so that the residues modulo any N
// are even). A fixed recipe: the same key is in the same shard on every build and machine.
uint64_t shard_hash(std::string_view bytes);

// The part of `total` items (a budget of evaluations) that shard `s` takes: total/N, one more
// for the first total%N shards.
uint64_t shard_share(uint64_t total, const shard_spec& s);

}  // namespace hone
