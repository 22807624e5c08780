# cmake/emulator.cmake: how scripts and tests start a program this build made,
# natively or, in a cross build, through CMAKE_CROSSCOMPILING_EMULATOR
# (cmake/aarch64-linux-gnu.cmake: qemu-aarch64, no binfmt_misc needed).
#
# ctest prepends the emulator itself to add_test(COMMAND <target> …), and so do
# add_custom_command(COMMAND <target> …) and gtest_discover_tests. Everything
# else that starts one of our programs — a `cmake -P` or shell script given its
# path, a test binary running the CLI with std::system — takes that path from
# here, the one place that knows about the emulator:
#
#   weft_runnable(<out-var> <target>)
#       <out-var> = $<TARGET_FILE:target> natively; in a cross build the path
#       of a generated launcher, ${CMAKE_BINARY_DIR}/emulated/<target>, that
#       execs the emulator with the target's file and the arguments given.
#   WEFT_EMULATOR_RUN
#       "" natively; in a cross build ${CMAKE_BINARY_DIR}/emulated/run, a
#       launcher for any program: `run PROGRAM ARGS…` (for programs built
#       outside this build, e.g. tests/package's out-of-tree embedder).

# The emulator command as single-quoted sh words.
function(_weft_emulator_words out_var)
  set(_words "")
  foreach(_word IN LISTS CMAKE_CROSSCOMPILING_EMULATOR)
    if(_word MATCHES "'")
      message(FATAL_ERROR "cmake/emulator.cmake: a word of CMAKE_CROSSCOMPILING_EMULATOR contains a quote: ${_word}")
    endif()
    string(APPEND _words "'${_word}' ")
  endforeach()
  set(${out_var} "${_words}" PARENT_SCOPE)
endfunction()

set(WEFT_EMULATOR_RUN "")
if(CMAKE_CROSSCOMPILING_EMULATOR)
  _weft_emulator_words(_words)
  set(WEFT_EMULATOR_RUN "${CMAKE_BINARY_DIR}/emulated/run")
  file(GENERATE OUTPUT "${WEFT_EMULATOR_RUN}"
       CONTENT "#!/bin/sh\n# Runs a program built for ${CMAKE_SYSTEM_PROCESSOR} under the emulator (cmake/emulator.cmake).\nexec ${_words}\"$@\"\n"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endif()

function(weft_runnable out_var target)
  if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
    set(${out_var} "$<TARGET_FILE:${target}>" PARENT_SCOPE)
    return()
  endif()
  set(_launcher "${CMAKE_BINARY_DIR}/emulated/${target}")
  get_property(_generated GLOBAL PROPERTY WEFT_EMULATED_TARGETS)
  if(NOT target IN_LIST _generated)
    _weft_emulator_words(_words)
    file(GENERATE OUTPUT "${_launcher}"
         CONTENT "#!/bin/sh\n# Runs ${target} under the emulator (cmake/emulator.cmake).\nexec ${_words}'$<TARGET_FILE:${target}>' \"$@\"\n"
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    set_property(GLOBAL APPEND PROPERTY WEFT_EMULATED_TARGETS ${target})
  endif()
  set(${out_var} "${_launcher}" PARENT_SCOPE)
endfunction()
