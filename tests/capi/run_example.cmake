# Runs one wasm-c-api example program on one tier (WEFT_TIER) in the current
# directory and compares its standard output with the expected file.
# The examples print the address of a frame's instance ("> 0x55d0c0ffee00 @
# ..."), which differs from run to run: it is compared as "<instance>".
if(TIER STREQUAL "interp")
  set(ENV{WEFT_TIER} interpreter)
else()
  set(ENV{WEFT_TIER} ${TIER})
endif()
execute_process(COMMAND ${PROGRAM} OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE exit_code)
string(REGEX REPLACE "(\n|^)> 0x[0-9a-f]+ @ " "\\1> <instance> @ " actual "${actual}")
file(READ ${EXPECTED} expected)
if(NOT exit_code EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${exit_code}\n--- stdout:\n${actual}\n--- stderr:\n${errors}")
endif()
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "output differs from ${EXPECTED}\n--- expected:\n${expected}\n--- actual:\n${actual}\n--- stderr:\n${errors}")
endif()
