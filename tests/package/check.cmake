# ctest driver: install the build tree into a scratch prefix, then configure, build and run the
# consumer project against it with find_package(liebatch).
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
