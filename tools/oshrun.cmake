# SPDX-License-Identifier: BSD-3-Clause
# oshrun: weft's single-machine launcher, a PMI-1 wire-protocol server
# (tools/oshrun.c; the server in tools/oshrun_pmi.c). Included from tools/CMakeLists.txt. It links neither
# libweft nor libfabric; it reads the tunables list only for the documented
# default of WEFT_ABORT_TIMEOUT. --traffic (tools/traffic/oshrun-traffic.c)
# preloads libweft-traffic.so into the PEs, found relative to oshrun.
add_executable(oshrun ${CMAKE_CURRENT_LIST_DIR}/oshrun.c ${CMAKE_CURRENT_LIST_DIR}/oshrun_pmi.c
                      ${CMAKE_CURRENT_LIST_DIR}/oshrun_handoff.c
                      ${CMAKE_CURRENT_LIST_DIR}/traffic/oshrun-traffic.c)
target_compile_options(oshrun PRIVATE ${WEFT_WARNINGS})
file(RELATIVE_PATH _oshrun_bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
target_compile_definitions(oshrun PRIVATE WEFT_VERSION_STRING="${PROJECT_VERSION}"
                           WEFT_TRAFFIC_BIN_TO_LIB="${_oshrun_bin_to_lib}"
                           WEFT_TRAFFIC_BUILD_LIBDIR="${CMAKE_LIBRARY_OUTPUT_DIRECTORY}")
target_include_directories(oshrun PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../src
                           ${CMAKE_CURRENT_LIST_DIR}/traffic)
install(TARGETS oshrun RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
