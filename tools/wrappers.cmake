# SPDX-License-Identifier: BSD-3-Clause
# Compiler wrappers oshcc (C) and oshc++ (C++), generated from oshcc.in.
#  - build tree: bin/oshcc and bin/oshc++ use the source include/ directory
#    and the build lib/ directory (with an rpath), so programs can be built
#    and run against an uninstalled weft.
#  - installed: <prefix>/bin/oshcc and oshc++ locate <prefix> from their own
#    path (falling back to CMAKE_INSTALL_PREFIX), so `cmake --install
#    --prefix` and relocated trees work.
# Both add WEFT_WRAPPER_EXTRA_FLAGS (the sanitizer flags of a WEFT_SANITIZE
# build) so user programs match the library.

set(_weft_wrap_perms OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)

# Paths of the install layout relative to the prefix (absolute ones are kept).
file(RELATIVE_PATH WEFT_WRAP_BIN_TO_PREFIX "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_PREFIX}")
if(WEFT_WRAP_BIN_TO_PREFIX STREQUAL "")
  set(WEFT_WRAP_BIN_TO_PREFIX ".")
endif()
file(RELATIVE_PATH WEFT_WRAP_REL_INCDIR "${CMAKE_INSTALL_PREFIX}" "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
file(RELATIVE_PATH WEFT_WRAP_REL_LIBDIR "${CMAKE_INSTALL_PREFIX}" "${CMAKE_INSTALL_FULL_LIBDIR}")

foreach(_weft_wrap IN ITEMS "oshcc;C;WEFT_CC" "oshc++;CXX;WEFT_CXX")
  list(GET _weft_wrap 0 WEFT_WRAP_NAME)
  list(GET _weft_wrap 1 _lang)
  list(GET _weft_wrap 2 WEFT_WRAP_ENV)
  set(WEFT_WRAP_COMPILER "${CMAKE_${_lang}_COMPILER}")

  # Build-tree variant.
  set(WEFT_WRAP_VARIANT build-tree)
  set(WEFT_WRAP_INCDIR "${PROJECT_SOURCE_DIR}/include")
  set(WEFT_WRAP_GENERATED_INCDIR "${WEFT_GENERATED_INCLUDE_DIR}")
  set(WEFT_WRAP_LIBDIR "${CMAKE_LIBRARY_OUTPUT_DIRECTORY}")
  configure_file(${CMAKE_CURRENT_LIST_DIR}/oshcc.in
                 ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${WEFT_WRAP_NAME}
                 @ONLY FILE_PERMISSIONS ${_weft_wrap_perms})

  # Installed variant.
  set(WEFT_WRAP_VARIANT installed)
  set(WEFT_WRAP_INCDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
  set(WEFT_WRAP_GENERATED_INCDIR "")
  set(WEFT_WRAP_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  configure_file(${CMAKE_CURRENT_LIST_DIR}/oshcc.in
                 ${CMAKE_CURRENT_BINARY_DIR}/installed/${WEFT_WRAP_NAME}
                 @ONLY FILE_PERMISSIONS ${_weft_wrap_perms})
  install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/installed/${WEFT_WRAP_NAME}
          DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()

if(WEFT_BUILD_TESTS)
  add_test(NAME tools.oshcc
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-wrappers ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
                   ${PROJECT_SOURCE_DIR}/examples/hello.c)
  set_tests_properties(tools.oshcc PROPERTIES TIMEOUT 120)
  weft_test_labels(tools.oshcc)
endif()
