# Runs `hone check INPUT --arch sm_90` and requires exit code 2 and the message that the
# input's first line names: "# expect: <text>".
file(STRINGS ${INPUT} first_line LIMIT_COUNT 1)
string(REGEX REPLACE "^# expect: " "" expected "${first_line}")
execute_process(COMMAND ${HONE} check ${INPUT} --arch sm_90
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "exit code ${rc}, expected 2\nstdout: ${out}\nstderr: ${err}")
endif()
string(FIND "${err}" "${expected}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "stderr lacks '${expected}'\nstderr: ${err}")
endif()
