// `hone report`: one self-contained HTML page (inline CSS and SVG drawn by hone, no script, no
// network) for one run or several side by side: the best configurations with their intervals
// and ties, the objective against each parameter, the comparison matrix of each parameter's
// values, parameter sensitivity, where the time went, search progress against random search,
// and failures by status with their messages.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "hone/record.hpp"

namespace hone {

struct report_run {
    run_identity identity;
    std::vector<eval_record> records;  // in stored (evaluation) order
    std::string source;                // the database it came from
    std::string final_word;            // a run on several GPUs: its final word (JSON), or ""
};

struct html_options {
    std::size_t top = 10;  // rows of each best table
};

std::string html_report(const std::vector<report_run>& runs, const html_options& opt = {});

}  // namespace hone
