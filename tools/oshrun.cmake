# oshrun: weft's single-machine launcher, a PMI-1 wire-protocol server
# (tools/oshrun.c). Included from tools/CMakeLists.txt. It links neither
# libweft nor libfabric; it reads the tunables list only for the documented
# default of WEFT_ABORT_TIMEOUT.
add_executable(oshrun ${CMAKE_CURRENT_LIST_DIR}/oshrun.c ${CMAKE_CURRENT_LIST_DIR}/oshrun_handoff.c)
target_compile_options(oshrun PRIVATE ${WEFT_WARNINGS})
target_compile_definitions(oshrun PRIVATE WEFT_VERSION_STRING="${PROJECT_VERSION}")
target_include_directories(oshrun PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../src/core)
install(TARGETS oshrun RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
