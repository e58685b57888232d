// The results database's row decoder: any text in the JSON columns (parameters, samples, job
// steps, metrics) and the status must decode, or be refused with an env_error (a row this
// hone did not write); anything else (a crash, a sanitizer report, another exception) is a bug.
// The input is the columns' texts separated by 0x01 bytes.
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hone/error.hpp"
#include "record/params_json.hpp"
#include "store/codec.hpp"

namespace {

// Column positions in record_columns() order (store/codec.cpp).
constexpr int n_columns = 46;
constexpr int params_col = 1, status_col = 2, samples_col = 41, steps_col = 43, metrics_col = 44;

sqlite3* database() {
    static sqlite3* db = [] {
        sqlite3* h = nullptr;
        sqlite3_open(":memory:", &h);
        return h;
    }();
    return db;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    std::vector<std::string> fields(1);
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] == 0x01) {
            fields.emplace_back();
        } else {
            fields.back() += static_cast<char>(data[i]);
        }
    }
    fields.resize(5);
    std::string sql = "SELECT ?1";
    for (int i = 2; i <= n_columns; ++i) sql += ", ?" + std::to_string(i);
    try {
        hone::sql::stmt s(database(), ":memory:", sql);
        for (int c = 0; c < n_columns; ++c) s.bind(c + 1, int64_t{0});
        s.bind(1, "key");
        s.bind(params_col + 1, fields[0]);
        s.bind(samples_col + 1, fields[1]);
        s.bind(steps_col + 1, fields[2]);
        s.bind(metrics_col + 1, fields[3]);
        s.bind(status_col + 1, fields[4].empty() ? std::string("ok") : fields[4]);
        if (!s.step()) return 0;
        const hone::eval_record r = hone::store_detail::read_record(s, "fuzz.db");
        hone::params_to_json(r.params).dump(
            -1, ' ', false, nlohmann::json::error_handler_t::replace);  // as the printers write it
    } catch (const hone::env_error&) {
    }
    return 0;
}
