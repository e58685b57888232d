# Locates hone's dependencies (Debian packages; see README.md beside this file).
find_package(yaml-cpp REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CUDAToolkit REQUIRED)
find_package(ZLIB REQUIRED)

find_library(HONE_YAML_STATIC NAMES libyaml-cpp.a)
find_library(HONE_SQLITE_STATIC NAMES libsqlite3.a)
find_path(HONE_SQLITE_INCLUDE sqlite3.h REQUIRED)
find_path(HONE_CLI11_INCLUDE CLI/CLI.hpp REQUIRED)
find_path(HONE_DOCTEST_INCLUDE doctest/doctest.h PATHS /usr/include REQUIRED)

if(HONE_YAML_STATIC)
  set(HONE_YAML_LIB ${HONE_YAML_STATIC})
else()
  set(HONE_YAML_LIB yaml-cpp)
endif()
if(HONE_SQLITE_STATIC)
  set(HONE_SQLITE_LIB ${HONE_SQLITE_STATIC} dl m)
else()
  find_library(HONE_SQLITE_SHARED sqlite3 REQUIRED)
  set(HONE_SQLITE_LIB ${HONE_SQLITE_SHARED})
endif()
find_package(Threads REQUIRED)

# fmt for libhone's code: its compiled part built once into libhone (src/common/fmt_impl.cpp),
# for the fmt that file's instantiations were written against (9.x: Debian 12's 9.1); any other
# fmt is used header-only, which compiles fmt's implementation in every file (slower, same result).
if(fmt_VERSION VERSION_GREATER_EQUAL 9 AND fmt_VERSION VERSION_LESS 10)
  set(HONE_FMT_COMPILED ON)
else()
  set(HONE_FMT_COMPILED OFF)
endif()
add_library(hone_fmt INTERFACE)
if(HONE_FMT_COMPILED)
  target_include_directories(hone_fmt INTERFACE
                             $<TARGET_PROPERTY:fmt::fmt-header-only,INTERFACE_INCLUDE_DIRECTORIES>)
else()
  target_link_libraries(hone_fmt INTERFACE fmt::fmt-header-only)
endif()
