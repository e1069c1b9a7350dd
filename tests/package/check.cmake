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
endif()
