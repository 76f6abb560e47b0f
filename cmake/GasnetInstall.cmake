# SPDX-License-Identifier: BSD-3-Clause
# GasnetInstall.cmake installs the GASNet-1 makefile fragments
#   <includedir>/weft-conduit/weft-seq.mak, weft-par.mak, weft-parsync.mak
# written at install time (like weft.pc) so they name the prefix actually
# installed to. Included from src/CMakeLists.txt.
# A relative install directory is written under the fragment's own prefix
# variable, so a client can point GASNET_PREFIX at a moved tree.
function(_weft_mak_dir out dir)
  cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY "$(GASNET_PREFIX)" OUTPUT_VARIABLE abs)
  set(${out} "${abs}" PARENT_SCOPE)
endfunction()
_weft_mak_dir(_weft_mak_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
_weft_mak_dir(_weft_mak_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
foreach(_mode seq par parsync)
  string(TOUPPER ${_mode} _define)
  install(CODE "
    set(WEFT_MAK_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(WEFT_MAK_LIBDIR \"${_weft_mak_LIBDIR}\")
    set(WEFT_MAK_INCLUDEDIR \"${_weft_mak_INCLUDEDIR}\")
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
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/weft-conduit)
endforeach()
