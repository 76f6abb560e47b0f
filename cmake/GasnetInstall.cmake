# SPDX-License-Identifier: BSD-3-Clause
# GasnetInstall.cmake installs the GASNet side of weft as a GASNet
# installation of its own (WEFT_GASNET_ROOT, <libdir>/weft/gasnet), the
# layout GASNet clients' build systems probe for:
#   <root>/include/             gasnet.h, gasnet_vis.h, gasnet_arity.h,
#                               gasnet_config.h (version macros) and no
#                               OpenSHMEM header
#   <root>/include/weft-conduit/  gasnet_core.h, weft-seq.mak, weft-par.mak,
#                               weft-parsync.mak (GASNet makefile fragments)
#   <root>/bin/gasnetrun_weft   gasnetrun_weft -n N prog args (over oshrun)
# The fragments and gasnetrun_weft are written at install time (like
# weft.pc); every directory in them is relative to the root, so a moved
# install still works. Included from src/CMakeLists.txt.
set(WEFT_GASNET_ROOT ${CMAKE_INSTALL_LIBDIR}/weft/gasnet)
set(WEFT_GASNET_ROOT ${WEFT_GASNET_ROOT} PARENT_SCOPE)

# A directory as the fragments and the launcher name it: relative to the
# root (through $(GASNET_PREFIX) or the script's own directory) when both
# are relative to the prefix, else absolute.
function(_weft_gasnet_rel out from dir)
  if(IS_ABSOLUTE "${dir}" OR IS_ABSOLUTE "${from}")
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY "${CMAKE_INSTALL_PREFIX}" OUTPUT_VARIABLE abs)
    set(${out} "${abs}" PARENT_SCOPE)
  else()
    file(RELATIVE_PATH rel "/prefix/${from}" "/prefix/${dir}")
    set(${out} "${rel}" PARENT_SCOPE)
  endif()
endfunction()
_weft_gasnet_rel(_weft_gn_libdir "${WEFT_GASNET_ROOT}" "${CMAKE_INSTALL_LIBDIR}")
string(REGEX REPLACE "/$" "" _weft_gn_libdir "${_weft_gn_libdir}")
_weft_gasnet_rel(_weft_gn_bindir "${WEFT_GASNET_ROOT}/bin" "${CMAKE_INSTALL_BINDIR}")
if(NOT IS_ABSOLUTE "${_weft_gn_libdir}")
  set(_weft_gn_libdir "$(GASNET_PREFIX)/${_weft_gn_libdir}")
endif()
if(NOT IS_ABSOLUTE "${_weft_gn_bindir}")
  set(_weft_gn_bindir "$here/${_weft_gn_bindir}")
endif()

install(FILES ${PROJECT_SOURCE_DIR}/include/gasnet.h ${PROJECT_SOURCE_DIR}/include/gasnet_vis.h
              ${PROJECT_BINARY_DIR}/include/gasnet_arity.h
              ${PROJECT_BINARY_DIR}/include/gasnet_config.h
        DESTINATION ${WEFT_GASNET_ROOT}/include)
install(FILES ${PROJECT_SOURCE_DIR}/src/gasnet/conduit/gasnet_core.h
        DESTINATION ${WEFT_GASNET_ROOT}/include/weft-conduit)
foreach(_mode seq par parsync)
  string(TOUPPER ${_mode} _define)
  install(CODE "
    set(WEFT_MAK_ROOT \"\${CMAKE_INSTALL_PREFIX}/${WEFT_GASNET_ROOT}\")
    set(WEFT_MAK_LIBDIR \"${_weft_gn_libdir}\")
    set(WEFT_MAK_MODE ${_mode})
    set(WEFT_MAK_DEFINE ${_define})
    set(PROJECT_VERSION \"${PROJECT_VERSION}\")
    set(CMAKE_C_COMPILER \"${CMAKE_C_COMPILER}\")
    set(CMAKE_CXX_COMPILER \"${CMAKE_CXX_COMPILER}\")
    set(WEFT_WRAPPER_EXTRA_FLAGS \"${WEFT_WRAPPER_EXTRA_FLAGS}\")
    configure_file(\"${CMAKE_CURRENT_LIST_DIR}/weft-conduit.mak.in\"
                   \"${CMAKE_BINARY_DIR}/cmake/weft-${_mode}.mak\" @ONLY)
  ")
  install(FILES ${CMAKE_BINARY_DIR}/cmake/weft-${_mode}.mak
          DESTINATION ${WEFT_GASNET_ROOT}/include/weft-conduit)
endforeach()
install(CODE "
  set(WEFT_RUN_BINDIR \"${_weft_gn_bindir}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/gasnetrun_weft.in\"
                 \"${CMAKE_BINARY_DIR}/cmake/gasnetrun_weft\" @ONLY)
")
install(PROGRAMS ${CMAKE_BINARY_DIR}/cmake/gasnetrun_weft DESTINATION ${WEFT_GASNET_ROOT}/bin)
