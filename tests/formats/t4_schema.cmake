# Imports INPUT, exports it as T4, and validates the file against the T4 JSON Schema.
#   -DHONE=... -DPYTHON=... -DSCHEMA=... -DINPUT=... -DWORK=... -DVALIDATE=validate_t4.py
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
foreach(step "import;${INPUT};-o;${WORK}/in.db" "export;${WORK}/in.db;--format;t4;-o;${WORK}/out.t4.json")
  execute_process(COMMAND ${HONE} ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "hone ${step}: exit ${rc}\n${out}${err}")
  endif()
endforeach()
execute_process(COMMAND ${PYTHON} ${VALIDATE} ${SCHEMA} ${WORK}/out.t4.json RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "T4 validation failed (${rc})")
endif()
# The file reads back: the same configurations.
execute_process(COMMAND ${HONE} import ${WORK}/out.t4.json -o ${WORK}/back.db RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hone import of the T4 file: exit ${rc}\n${out}${err}")
endif()
message(STATUS "${out}")
