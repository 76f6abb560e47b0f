# SPDX-License-Identifier: BSD-3-Clause
# The traffic recorder (docs/traffic.md): libweft-traffic.so, a profiling
# tool that oshrun --traffic preloads. It defines the routines that
# communicate or wait (wrappers.c, generated from the type tables), forwards
# each to its pshmem_ name and counts it; the last shmem_finalize gathers the
# counts on PE 0, which writes <report>.json and <report>.html. Included from
# tools/CMakeLists.txt. libweft records nothing itself: a program that is
# not started with the recorder pays nothing.
set(_tr_dir ${CMAKE_CURRENT_LIST_DIR})
set(_tr_template_c ${CMAKE_CURRENT_BINARY_DIR}/traffic_template.c)
add_custom_command(
  OUTPUT ${_tr_template_c}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${_tr_dir}/report.html -DOUT=${_tr_template_c}
          -DSYMBOL=tr_html_template -P ${_tr_dir}/embed.cmake
  DEPENDS ${_tr_dir}/report.html ${_tr_dir}/embed.cmake
  COMMENT "Embedding the traffic report's HTML template" VERBATIM)

add_library(weft-traffic SHARED ${_tr_dir}/wrappers.c ${_tr_dir}/record.c ${_tr_dir}/report.c
            ${_tr_template_c})
target_link_libraries(weft-traffic PRIVATE weft)
target_compile_options(weft-traffic PRIVATE ${WEFT_WARNINGS})
target_compile_definitions(weft-traffic PRIVATE WEFT_VERSION_STRING="${PROJECT_VERSION}")
# Only the OpenSHMEM names it defines (declared with default visibility by
# shmem.h) and weft_traffic_recorder are its interface; every pshmem_ name it
# calls must exist in libweft (--no-undefined).
set_target_properties(weft-traffic PROPERTIES C_VISIBILITY_PRESET hidden OUTPUT_NAME weft-traffic)
target_link_options(weft-traffic PRIVATE -Wl,--no-undefined)
set_target_properties(weft-traffic PROPERTIES INSTALL_RPATH "$ORIGIN")
install(TARGETS weft-traffic LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The JSON reader weft-info --traffic and the tests use.
add_library(weft_traffic_json STATIC ${_tr_dir}/json.c ${_tr_dir}/textmap.c)
target_compile_options(weft_traffic_json PRIVATE ${WEFT_WARNINGS})
target_include_directories(weft_traffic_json PUBLIC ${_tr_dir})
target_link_libraries(weft_traffic_json PUBLIC m)
