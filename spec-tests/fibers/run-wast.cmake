# Runs one fiber test file that needs extra `weft wast` options (the file's
# `;; weft-wast-options:` line), or one regression file (spec-tests/regressions,
# with or without such a line), for its ctest entry (spec-tests/CMakeLists.txt):
#
#   cmake -DWEFT=path/to/weft -DSCRIPT=limits.wast "-DOPTIONS=--max-fibers=16"
#         -DEXPECT_FAIL=ON|OFF [-DTIER=interp|jit] [-DEXTRA=--no-fallback] -P run-wast.cmake
#         (in spec-tests/fibers)
#
# Same result as `weft wast --tier=TIER [--expect-fail] OPTIONS SCRIPT` (TIER
# defaults to interp), except
# when weft does not know one of the options yet (the fiber implementation is
# in progress): that counts as a failure of the file, which is what an entry of
# spec-tests/fibers.failures expects; for a file not on that list it is an error.
foreach(_var WEFT SCRIPT OPTIONS EXPECT_FAIL)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run-wast.cmake: -D${_var}=… is required")
  endif()
endforeach()

execute_process(COMMAND "${WEFT}" wast --help OUTPUT_VARIABLE _help ERROR_VARIABLE _help_err RESULT_VARIABLE _rc)
foreach(_option IN LISTS OPTIONS)
  string(REGEX REPLACE "=.*$" "" _name "${_option}")
  string(FIND "${_help}" "${_name}" _found)
  if(_found EQUAL -1)
    if(EXPECT_FAIL)
      message(STATUS "${SCRIPT}: weft wast has no ${_name} option yet")
      message(STATUS "expected failure: ok")
      return()
    endif()
    message(FATAL_ERROR "${SCRIPT} needs `weft wast ${_option}`, which this weft does not support")
  endif()
endforeach()

if(NOT DEFINED TIER)
  set(TIER interp)
endif()
set(_args wast --tier=${TIER} ${EXTRA})
if(EXPECT_FAIL)
  list(APPEND _args --expect-fail)
endif()
execute_process(COMMAND "${WEFT}" ${_args} ${OPTIONS} "${SCRIPT}" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "weft ${_args} ${OPTIONS} ${SCRIPT} exited with ${_rc}")
endif()
