# SPDX-License-Identifier: BSD-3-Clause
# weft-info: version, build configuration, libfabric providers, tunables and
# the transport weft selects. It asks the library through its info interface
# (include/weft/info.h) and reads the build configuration from the generated
# weft_config.h; nothing of src/.
add_executable(weft-info ${CMAKE_CURRENT_LIST_DIR}/weft-info.c)
target_compile_options(weft-info PRIVATE ${WEFT_WARNINGS})
target_include_directories(weft-info PRIVATE ${PROJECT_BINARY_DIR}/src)
target_link_libraries(weft-info PRIVATE weft PkgConfig::FABRIC weft_traffic_json)
file(RELATIVE_PATH _weft_info_rpath "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
set(_weft_info_install_rpath "$ORIGIN/${_weft_info_rpath}")
# The libfabric libweft loads (WEFT_LIBFABRIC_ROOT), when the loader would
# not find it by itself: one libfabric in the process.
if(NOT FABRIC_LIBDIR IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
  list(APPEND _weft_info_install_rpath "${FABRIC_LIBDIR}")
endif()
set_target_properties(weft-info PROPERTIES INSTALL_RPATH "${_weft_info_install_rpath}")
install(TARGETS weft-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(WEFT_BUILD_TESTS)
  add_test(NAME tools.weft-info.tunables COMMAND weft-info --tunables)
  # Every tunable of tunables.def is listed, in the order of its category
  # rows (WEFT_TUNABLE_IN).
  file(STRINGS ${PROJECT_SOURCE_DIR}/src/core/tunables.def _weft_tun_lines REGEX "^WEFT_TUNABLE\\(")
  foreach(_l IN LISTS _weft_tun_lines)
    string(REGEX REPLACE "^WEFT_TUNABLE\\(([A-Za-z0-9_]+), *\"([A-Za-z0-9_]+)\".*" "\\1;\\2" _p "${_l}")
    list(GET _p 0 _id)
    list(GET _p 1 _weft_tun_name_${_id})
  endforeach()
  file(STRINGS ${PROJECT_SOURCE_DIR}/src/core/tunables.def _weft_tun_lines
       REGEX "^WEFT_TUNABLE_IN\\(")
  set(_weft_tun_regex "")
  foreach(_l IN LISTS _weft_tun_lines)
    string(REGEX REPLACE "^WEFT_TUNABLE_IN\\(([A-Za-z0-9_]+),.*" "\\1" _id "${_l}")
    string(APPEND _weft_tun_regex "${_weft_tun_name_${_id}}.*")
  endforeach()
  set_tests_properties(tools.weft-info.tunables PROPERTIES
                       PASS_REGULAR_EXPRESSION "${_weft_tun_regex}")
  weft_test_labels(tools.weft-info.tunables)
  # Each RDM provider here gets a line of what weft uses on it, measured
  # (tools/check-weft-info-providers names what it expects per provider).
  add_test(NAME tools.weft-info.providers
           COMMAND ${PROJECT_SOURCE_DIR}/tools/check-weft-info-providers $<TARGET_FILE:weft-info>)
  set_tests_properties(tools.weft-info.providers PROPERTIES TIMEOUT 240)
  weft_test_labels(tools.weft-info.providers)
  # Everything but --providers, which the test above runs.
  add_test(NAME tools.weft-info COMMAND weft-info --version --config --tunables --transport)
  set_tests_properties(tools.weft-info PROPERTIES TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "weft selected provider: [a-z]")
  weft_test_labels(tools.weft-info)
  # docs/tunables.md is what scripts/gen-docs-tunables makes of tunables.def
  # and docs/tunables.md.in.
  add_test(NAME docs.tunables
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/gen-docs-tunables --check)
  weft_test_labels(docs.tunables)
  # docs/scaling.md's projections are what weft-info --scale prints from
  # src/core/scale.def.
  add_test(NAME docs.scaling COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-doc-scale
                                     $<TARGET_FILE:weft-info> ${PROJECT_SOURCE_DIR}/docs/scaling.md)
  weft_test_labels(docs.scaling)
  add_test(NAME tools.weft-info.scale COMMAND weft-info --scale 16,1000,100000 --ppn 16)
  set_tests_properties(tools.weft-info.scale PROPERTIES
                       PASS_REGULAR_EXPRESSION "host peers' processes.*per PE of the job")
  weft_test_labels(tools.weft-info.scale)
endif()
# The pass regex above is built from tunables.def: re-configure when it changes.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/src/core/tunables.def)
