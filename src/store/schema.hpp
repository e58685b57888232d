// The results database layout (schema 3). Any change to it bumps schema_version in open.hpp.
#pragma once
#include <sqlite3.h>

#include <string>

namespace hone::store_detail {

constexpr const char* meta_format = "hone-results";

// Creates the tables in a blank database and stamps application_id and user_version.
void create_schema(sqlite3* db, const std::string& path);
// Brings a database of an older schema (from_version < schema_version) up to date in one
// transaction; the rows stay, new columns take their defaults.
void upgrade_schema(sqlite3* db, const std::string& path, int from_version);

}  // namespace hone::store_detail
