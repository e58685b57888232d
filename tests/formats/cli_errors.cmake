# The options of export, import and report: each wrong use exits with its code and says why.
#   -DHONE=... -DFORMATS=<tests/formats> -DWORK=<scratch folder>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(db ${WORK}/two.db)
foreach(input sample_cache.json hone_run.t4.json)
  execute_process(COMMAND ${HONE} import ${FORMATS}/${input} -o ${db} RESULT_VARIABLE rc
                  OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "import ${input}: exit ${rc}: ${err}")
  endif()
endforeach()

# expect(<exit code> <text in stderr> <args...>)
function(expect code text)
  execute_process(COMMAND ${HONE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${err}" "${text}" at)
  if(NOT rc EQUAL ${code} OR at EQUAL -1)
    message(FATAL_ERROR "hone ${ARGN}: exit ${rc} (expected ${code}), stderr lacks '${text}'\n"
                        "stdout: ${out}\nstderr: ${err}")
  endif()
endfunction()

expect(2 "choose what to write: --format t4, kt-cache or csv" export ${db})
expect(2 "--format: xml not in {t4,kt-cache,csv}" export ${db} --format xml)
expect(2 "holds 2 runs and a t4 file holds one: choose it with --run N" export ${db} --format t4)
expect(2 "holds 2 runs and a kt-cache file holds one" export ${db} --format kt-cache)
expect(2 "no run of ${db} is numbered 'zzzz' or has an id starting with it" export ${db} --format csv --run zzzz)
expect(2 "no such results database" export ${WORK}/absent.db --format csv)
expect(3 "cannot write" export ${db} --format csv -o ${WORK}/no/such/dir/x.csv)
expect(2 "--format: bogus not in {auto,t4,kt-cache}" import ${FORMATS}/sample_cache.json -o ${WORK}/x.db --format bogus)
expect(2 "not T4 results" import ${FORMATS}/sample_cache.json -o ${WORK}/x.db --format t4)
expect(2 "not a Kernel Tuner cache" import ${FORMATS}/hone_run.t4.json -o ${WORK}/x.db --format kt-cache)
expect(2 "--output is required" import ${FORMATS}/sample_cache.json)
expect(2 "absent.json: no such file" import ${WORK}/absent.json -o ${WORK}/x.db)
expect(2 "no run of ${db} is numbered 'zzzz' or has an id starting with it" report ${db} --run zzzz -o ${WORK}/r.html)
expect(2 "no such results database" report ${WORK}/absent.db -o ${WORK}/r.html)
if(EXISTS ${WORK}/x.db OR EXISTS ${WORK}/r.html)
  message(FATAL_ERROR "a refused command left a file behind")
endif()

# And the right uses work: CSV of both runs, one run chosen by id for T4, a report of both.
execute_process(COMMAND ${HONE} export ${db} --format csv RESULT_VARIABLE rc OUTPUT_VARIABLE csv)
string(FIND "${csv}" "run,kernel,device,origin," at)
if(NOT rc EQUAL 0 OR NOT at EQUAL 0)
  message(FATAL_ERROR "csv of two runs: exit ${rc}\n${csv}")
endif()
execute_process(COMMAND ${HONE} show ${db} OUTPUT_VARIABLE shown)
string(REGEX MATCH "run [0-9]+ \\(([0-9a-f]+)\\): vadd on [^\n]*imported: kernel_tuner cache \\(sample_cache.json\\)" m "${shown}")
if(NOT CMAKE_MATCH_1)
  message(FATAL_ERROR "hone show names no imported run:\n${shown}")
endif()
execute_process(COMMAND ${HONE} export ${db} --format t4 --run ${CMAKE_MATCH_1} -o ${WORK}/one.t4.json
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/one.t4.json)
  message(FATAL_ERROR "t4 of the chosen run: exit ${rc}: ${err}")
endif()
execute_process(COMMAND ${HONE} report ${db} -o ${WORK}/both.html RESULT_VARIABLE rc OUTPUT_VARIABLE out)
string(FIND "${out}" "(2 runs, 15 configurations)" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "report of both runs: exit ${rc}: ${out}")
endif()

# A T4 file of another tool, as the FAIR benchmark hub publishes them: no kernel, device or
# problem (T4 keeps them in a separate metadata file) and its spelling of the unit.
file(WRITE ${WORK}/hub.t4.json [=[{"schema_version": "1.0.0", "metadata": {"timeunit": "miliseconds"},
"results": [{"configuration": {"bx": 32}, "times": {"runtimes": [2.0, 2.5]}, "invalidity": "correct",
  "correctness": 1, "measurements": [{"name": "time", "value": 2.25, "unit": "miliseconds"}],
  "objectives": ["time"]}]}]=])
execute_process(COMMAND ${HONE} import ${WORK}/hub.t4.json -o ${WORK}/hub.db RESULT_VARIABLE rc
                ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import of a hub-style T4 file: exit ${rc}: ${err}")
endif()
execute_process(COMMAND ${HONE} show ${WORK}/hub.db OUTPUT_VARIABLE shown)
string(FIND "${shown}" "(unnamed kernel) on an unnamed device; imported: T4 (hub.t4.json)" at)
if(at EQUAL -1)
  message(FATAL_ERROR "hone show of a run that names no kernel or device:\n${shown}")
endif()
