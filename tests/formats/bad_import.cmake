# Runs `hone import INPUT` and requires exit code 2, EXPECT in stderr, and nothing written: no
# new database, and an existing one byte for byte unchanged.
#   -DHONE=... -DINPUT=... -DEXPECT=... -DSAMPLE=<a good file> -DWORK=<scratch folder>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${HONE} import ${INPUT} -o ${WORK}/new.db
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "exit code ${rc}, expected 2\nstdout: ${out}\nstderr: ${err}")
endif()
string(FIND "${err}" "${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "stderr lacks '${EXPECT}'\nstderr: ${err}")
endif()
file(GLOB left ${WORK}/*)
if(left)
  message(FATAL_ERROR "a refused import left files behind: ${left}")
endif()

execute_process(COMMAND ${HONE} import ${SAMPLE} -o ${WORK}/old.db RESULT_VARIABLE rc
                OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "importing the good sample failed (${rc}): ${err}")
endif()
file(SHA256 ${WORK}/old.db before)
execute_process(COMMAND ${HONE} import ${INPUT} -o ${WORK}/old.db RESULT_VARIABLE rc
                OUTPUT_QUIET ERROR_QUIET)
file(SHA256 ${WORK}/old.db after)
if(NOT rc EQUAL 2 OR NOT before STREQUAL after)
  message(FATAL_ERROR "a refused import into an existing database: exit ${rc}, changed: "
                      "${before} -> ${after}")
endif()
