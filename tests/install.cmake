# `cmake --install` into a fresh prefix, then build outside projects against it through
# find_package(hone): tests/install (run here: compiles through the installed hone-worker) and
# examples/ (CUDA; built here, run on a GPU machine). Any failure fails the test.
#   cmake -DBUILD=<build dir> -DSOURCE=<repo> -DWORK=<scratch dir> -DGENERATOR=... -DNVCC=...
#         [-DLAUNCHER=ccache] -P tests/install.cmake
foreach(var BUILD SOURCE WORK GENERATOR NVCC)
  if(NOT ${var})
    message(FATAL_ERROR "install.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
foreach(f lib/libhone.so bin/hone bin/hone-worker include/hone/tuner.hpp
          lib/cmake/hone/honeConfig.cmake lib/cmake/hone/honeConfigVersion.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()

# The package asks consumers for nothing but itself: no installed CMake file names another
# package, and the installed headers include only the standard library and each other.
file(GLOB cmake_files ${prefix}/lib/cmake/hone/*.cmake)
foreach(f ${cmake_files})
  file(READ ${f} text)
  # libhone.so's own shared libraries (yaml-cpp) are listed for the linker's -rpath-link, not
  # asked of consumers.
  string(REGEX REPLACE "IMPORTED_LINK_DEPENDENT_LIBRARIES[A-Z_]* \"[^\"]*\"" "" text "${text}")
  if(text MATCHES "nlohmann|fmt::|yaml|find_dependency")
    message(FATAL_ERROR "${f} asks consumers for another package:\n${CMAKE_MATCH_0}")
  endif()
endforeach()
# The installed headers are the API and nothing else: the machinery's headers stay under src/.
# A header made public is added here on purpose.
set(public_headers compile_result config device_attrs device_info elem_type error expr
                   final_word hone job_result kernel record shard spec status store summary tuner
                   value wisdom)
file(GLOB headers ${prefix}/include/hone/*)
set(installed)
foreach(h ${headers})
  get_filename_component(name ${h} NAME)
  list(APPEND installed ${name})
endforeach()
list(TRANSFORM public_headers APPEND .hpp)
list(SORT installed)
list(SORT public_headers)
if(NOT installed STREQUAL public_headers)
  message(FATAL_ERROR "installed headers: ${installed}\nthe API's: ${public_headers}")
endif()
foreach(h ${headers})
  file(STRINGS ${h} includes REGEX "^#include")
  foreach(line ${includes})
    if(NOT line MATCHES "^#include (<[a-z_]+>|\"hone/[a-z_]+\\.hpp\")$")
      message(FATAL_ERROR "${h} includes more than the standard library and hone/: ${line}")
    endif()
  endforeach()
endforeach()

# libhone.so loads without a driver (no libcuda), and finds everything it needs.
run("ldd libhone.so" ldd ${prefix}/lib/libhone.so)
if(last_output MATCHES "not found|libcuda")
  message(FATAL_ERROR "libhone.so's dependencies:\n${last_output}")
endif()

# hone-worker run by hand says what it is, with exit code 2.
execute_process(COMMAND ${prefix}/bin/hone-worker compile RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err INPUT_FILE /dev/null)
if(NOT rc EQUAL 2 OR NOT err MATCHES "not meant to be run by hand")
  message(FATAL_ERROR "hone-worker by hand: exit ${rc}, said:\n${out}${err}")
endif()

set(common -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
if(LAUNCHER)
  list(APPEND common -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER} -DCMAKE_CUDA_COMPILER_LAUNCHER=${LAUNCHER})
endif()

# An outside C++ project: compiles a sample of vector_add through the installed worker, and
# compiles each installed header on its own.
run("configuring tests/install" ${CMAKE_COMMAND} -S ${SOURCE}/tests/install -B ${WORK}/consumer ${common})
run("building tests/install" ${CMAKE_COMMAND} --build ${WORK}/consumer --parallel 2)
run("running the consumer" ${CMAKE_COMMAND} -E env --unset=HONE_WORKER
    ${WORK}/consumer/consumer ${SOURCE}/configs/vector_add.yaml)
message(STATUS "${last_output}")

# The examples, a CUDA project.
run("configuring examples/" ${CMAKE_COMMAND} -S ${SOURCE}/examples -B ${WORK}/examples ${common}
    -DCMAKE_CUDA_COMPILER=${NVCC})
run("building examples/" ${CMAKE_COMMAND} --build ${WORK}/examples --parallel 2)
message(STATUS "installed into ${prefix}; examples built in ${WORK}/examples")
