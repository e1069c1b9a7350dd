# ctest driver: install the build tree into a scratch prefix, then configure, build and run the
# consumer project against it with find_package(liebatch); where the build has the command line
# (CLI), run the installed bin/liebatch too.
file(REMOVE_RECURSE "${WORK}")
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD};--prefix;${WORK}/prefix"
    "${CMAKE_COMMAND};-S;${SRC};-B;${WORK}/build;-DCMAKE_PREFIX_PATH=${WORK}/prefix"
    "${CMAKE_COMMAND};--build;${WORK}/build"
    "${WORK}/build/consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package check failed at: ${step}")
  endif()
endforeach()
if(CLI)
  execute_process(COMMAND "${WORK}/prefix/bin/liebatch" list models RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "heavy_top")
    message(FATAL_ERROR "the installed bin/liebatch did not list its models (exit ${rc})")
  endif()
  # It compiles a user's model against its installed headers, not the build's.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "LIEBATCH_CACHE_DIR=${WORK}/cache" --unset=LIEBATCH_PLUGIN_CONFIG
                          "${WORK}/prefix/bin/liebatch" list models --source ${MODEL} --type Gyrostat --methods rkmk4
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(GLOB manifest "${WORK}/cache/models/*.manifest")
  set(text "")
  if(manifest)
    file(READ ${manifest} text)
  endif()
  string(FIND "${text}" "${WORK}/prefix/share/liebatch/plugin/cli/models/plugin_unit.cpp" unit)  # paths: no regex
  string(FIND "${text}" "${WORK}/prefix/include/liebatch/coadjoint.hpp" core)
  string(FIND "${text}" "${SOURCE}/cli/" build_tree)  # not the source tree's headers
  if(NOT rc EQUAL 0 OR NOT out MATCHES "rotor" OR unit EQUAL -1 OR core EQUAL -1 OR NOT build_tree EQUAL -1)
    message(FATAL_ERROR "the installed bin/liebatch did not compile a user's model against its own headers (exit ${rc}):\n${out}${err}\n${text}")
  endif()
endif()
# An installed Python module is under the prefix too, with its compile settings beside it.
file(GLOB module "${WORK}/prefix/lib/python3*/*-packages/liebatch/_liebatch*.so")
if(PYTHON AND NOT module)
  message(FATAL_ERROR "the Python module was built but is not installed under the prefix")
endif()
if(module)
  get_filename_component(dir "${module}" DIRECTORY)
  file(READ "${dir}/plugin_config.txt" text)
  string(FIND "${text}" "unit ${WORK}/prefix/share/liebatch/plugin/cli/models/plugin_unit.cpp" unit)
  if(unit EQUAL -1)
    message(FATAL_ERROR "the installed Python module's plugin_config.txt does not name the prefix's unit:\n${text}")
  endif()
endif()
