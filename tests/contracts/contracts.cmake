# ctest driver: compiles tests/contracts/user_code.cpp with -DCASE and requires
#   - CASE = LB_CASE_GOOD: that it compiles (so the other cases fail for their own reason);
#   - otherwise: that it fails, with a diagnostic matching EXPECT (the missing member's name).
execute_process(
  COMMAND ${CXX} -std=c++20 -fsyntax-only -D${CASE} -I${INCLUDE} ${SOURCE}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(CASE STREQUAL "LB_CASE_GOOD")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the model that keeps every contract does not compile:\n${err}")
  endif()
elseif(rc EQUAL 0)
  message(FATAL_ERROR "${CASE}: compiled, but it breaks a contract")
elseif(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "${CASE}: failed to compile, but the diagnostic does not name '${EXPECT}':\n${err}")
else()
  string(REGEX MATCH "[^\n]*${EXPECT}[^\n]*" line "${err}")
  message(STATUS "${CASE}: ${line}")
endif()
