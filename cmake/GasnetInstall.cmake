# GasnetInstall.cmake installs the GASNet-1 makefile fragments
#   <includedir>/weft-conduit/weft-seq.mak, weft-par.mak, weft-parsync.mak
# written at install time (like weft.pc) so they name the prefix actually
# installed to. Included from src/CMakeLists.txt.
foreach(_d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_d}}")
    set(_weft_mak_${_d} "${CMAKE_INSTALL_${_d}}")
  else()
    set(_weft_mak_${_d} "$(GASNET_PREFIX)/${CMAKE_INSTALL_${_d}}")
  endif()
endforeach()
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
