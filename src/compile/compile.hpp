// Run-time compilation with NVRTC, straight to CUBIN for one architecture.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hone/compile_result.hpp"
#include "hone/config.hpp"
#include "hone/spec.hpp"

namespace hone {

struct compile_request {
    std::string source;                // kernel source text
    std::string source_name;           // file name shown in NVRTC diagnostics
    std::string name_expression;       // "vector_add<4, true>", or "" for a plain extern "C" name
    std::string plain_name;            // extern "C" name when name_expression is empty
    std::vector<std::string> options;  // full NVRTC option list, arch and -D included
    // Every included file's text is part of the cache key; filled by make_compile_request.
    std::vector<std::string> include_dirs;

    std::string cache_key() const;  // hex digest of everything that determines the binary
};

// Builds the request for one configuration: a #define of every problem size and every param
// but those with define: false, at the top of the source (source_macros.hpp),
// --gpu-architecture=<arch>, -I dirs, max_registers, fast_math, user options, -lineinfo off. Throws
// input_error if a name placeholder names no parameter.
compile_request make_compile_request(const spec& s, const config& c, const bindings& scope,
                                     const std::string& arch);
// Same for the verify reference kernel (ref == kernel), with the reference parameters.
compile_request make_reference_request(const spec& s, const config& ref_cfg, const bindings& scope,
                                       const std::string& arch);

// The -I folders of a kernel's compiles: kernel.include_dirs, then the source's own folder.
std::vector<std::string> kernel_include_dirs(const kernel_spec& k);

// A digest of `source` and of the text of every file it includes, as the compile cache sees
// them: "..." and <...> found beside the including file or in `include_dirs`, recursively, read
// now (source_name: the source's path, for its folder).
std::string source_digest(std::string_view source, const std::string& source_name,
                          const std::vector<std::string>& include_dirs);
// The kernel's source hash, run_identity::source_hash: its source (as loaded) and every file
// it includes through kernel_include_dirs(k). Results stored under another source hash were
// measured on other code: an application holding tuned results compares this to the stored
// identity's source_hash to tell whether they are stale.
std::string kernel_source_hash(const kernel_spec& k);

// Substitutes {PARAM} placeholders in a kernel name. Throws input_error on an unknown name.
std::string expand_name(const std::string& pattern, const spec& s, const bindings& scope,
                        const source_pos& pos);

inline std::string kernel_source_hash(const spec& s) {
    return kernel_source_hash(s.kernel);
}

// Compiles in this process. timeout_s > 0 cancels through nvrtcSetFlowCallback.
compile_result compile_nvrtc(const compile_request& req, double timeout_s = 0.0);
// Parses "ptxas info : Used N registers, ..." lines from an NVRTC log: the first entry
// function's, or those of `function` (a lowered name) when the log lists several.
resource_usage parse_ptxas_info(const std::string& log);
resource_usage parse_ptxas_info(const std::string& log, const std::string& function);
// The entry (__global__) functions ptxas's verbose log names, in order.
std::vector<std::string> ptxas_entry_functions(const std::string& log);
std::string nvrtc_version();  // "13.0"
// The architectures this NVRTC compiles for, as 10 * major + minor (75, 80, ..., 121).
std::vector<int> nvrtc_archs();

}  // namespace hone
