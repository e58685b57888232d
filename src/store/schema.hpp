// The results database layout (schema 1). Any change to it bumps schema_version in open.hpp.
#pragma once
#include <sqlite3.h>

#include <string>

namespace hone::store_detail {

constexpr const char* meta_format = "hone-results";

// Creates the tables in a blank database and stamps application_id and user_version.
void create_schema(sqlite3* db, const std::string& path);

}  // namespace hone::store_detail
