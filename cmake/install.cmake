# What `cmake --install` puts under the prefix, so that a program outside the
# tree embeds weft with only the installed files (docs/embedding.md):
#   include/weft/*.h                      the public C++ API (self-contained)
#   lib/libweft_*.a                       the stages the API needs, static
#   lib/cmake/weft/                       find_package(weft) -> target weft::weft
#   lib/pkgconfig/weft.pc                 pkg-config --cflags --libs weft
# tests/package/ builds a program against an installed copy both ways.
include(CMakePackageConfigHelpers)

# The libraries behind the public API, in link order (each before what it uses).
set(WEFT_PACKAGE_LIBRARIES weft_api)
if(TARGET weft_jit)
  list(APPEND WEFT_PACKAGE_LIBRARIES weft_jit)
endif()
list(APPEND WEFT_PACKAGE_LIBRARIES weft_interpreter weft_runtime weft_fibers weft_validator weft_text weft_binary
     weft_core)

# weft::weft: one name for all of them (the CLI executable already owns `weft`).
add_library(weft_package INTERFACE)
target_link_libraries(weft_package INTERFACE weft_api)
target_compile_features(weft_package INTERFACE cxx_std_20)
set_target_properties(weft_package PROPERTIES EXPORT_NAME weft)

install(TARGETS ${WEFT_PACKAGE_LIBRARIES} weft_package EXPORT weftTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/weft/weft.h include/weft/config.h include/weft/result.h include/weft/types.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/weft)

set(WEFT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/weft)
install(EXPORT weftTargets NAMESPACE weft:: DESTINATION ${WEFT_CMAKE_DIR})
if(TARGET weft_jit)
  set(WEFT_PACKAGE_NEEDS_ASMJIT ON)
else()
  set(WEFT_PACKAGE_NEEDS_ASMJIT OFF)
endif()
configure_package_config_file(cmake/weftConfig.cmake.in ${CMAKE_BINARY_DIR}/weftConfig.cmake
                              INSTALL_DESTINATION ${WEFT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/weftConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/weftConfig.cmake ${CMAKE_BINARY_DIR}/weftConfigVersion.cmake
        DESTINATION ${WEFT_CMAKE_DIR})

# pkg-config: the same libraries in link order, then asmjit and what the
# static libraries need from the system.
set(WEFT_PC_LIBS "")
foreach(lib ${WEFT_PACKAGE_LIBRARIES})
  string(APPEND WEFT_PC_LIBS " -l${lib}")
endforeach()
if(TARGET weft_jit)
  string(APPEND WEFT_PC_LIBS " -lasmjit")
endif()
string(APPEND WEFT_PC_LIBS " -lpthread -lrt")
configure_file(cmake/weft.pc.in ${CMAKE_BINARY_DIR}/weft.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/weft.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The package works from outside the tree: install this build into a fresh
# prefix and build tests/package/embed.cc against it with find_package and
# with pkg-config. Not in sanitizer/fuzzer builds, whose libraries need the
# sanitizer runtime the out-of-tree program does not link.
if(WEFT_BUILD_TESTS AND NOT WEFT_SANITIZE AND NOT WEFT_FUZZ)
  foreach(how cmake pkg-config)
    add_test(NAME package.${how}
             COMMAND bash ${CMAKE_SOURCE_DIR}/tests/package/run.sh ${how} ${CMAKE_BINARY_DIR}
                     ${CMAKE_BINARY_DIR}/package-${how})
    set_tests_properties(package.${how} PROPERTIES TIMEOUT 300 LABELS package)
    if(CMAKE_CROSSCOMPILING)
      # Build the embedder for the target too, and run it through the emulator.
      set_tests_properties(package.${how} PROPERTIES ENVIRONMENT
        "CXX=${CMAKE_CXX_COMPILER};CMAKE_TOOLCHAIN_FILE=${CMAKE_TOOLCHAIN_FILE};WEFT_EMULATOR_RUN=${WEFT_EMULATOR_RUN}")
    endif()
  endforeach()
endif()
