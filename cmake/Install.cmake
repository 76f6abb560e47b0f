# SPDX-License-Identifier: BSD-3-Clause
# Install rules for what lets other projects use an installed weft:
#   <libdir>/pkgconfig/weft.pc             pkg-config --cflags --libs weft
#   <libdir>/pkgconfig/gasnet-weft-seq.pc  GASNet's name for a conduit and
#     (-par, -parsync)                     mode: GASNet headers and
#                                          libweft-gasnet only
#   <libdir>/cmake/weft/weftConfig.cmake   find_package(weft) -> weft::weft,
#                                          weft::gasnet (GASNet-only)
#   (+ weftConfigVersion.cmake, weftTargets*.cmake)
# The library, headers (src/CMakeLists.txt) and oshcc/oshc++/oshrun/weft-info
# (tools/) install themselves. Include this file from the top level after
# add_subdirectory(src).
include(CMakePackageConfigHelpers)

set(WEFT_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/weft)

install(EXPORT weftTargets NAMESPACE weft:: DESTINATION ${WEFT_CMAKE_INSTALL_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/weftConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/cmake/weftConfig.cmake
                              INSTALL_DESTINATION ${WEFT_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/weftConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/weftConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/weftConfigVersion.cmake
        DESTINATION ${WEFT_CMAKE_INSTALL_DIR})

# weft.pc is written at install time. Its prefix is relative to where the
# file is (${pcfiledir}, pkg-config's own variable), so an installed tree can
# be moved like oshcc and the CMake package; an absolute libdir keeps the
# prefix `cmake --install --prefix P` was given.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(_weft_pc_prefix "\${CMAKE_INSTALL_PREFIX}")
else()
  # One ".." per component of <libdir>/pkgconfig.
  set(_weft_pc_prefix "\\\${pcfiledir}")
  string(REPLACE "/" ";" _weft_pc_parts "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  foreach(_p IN LISTS _weft_pc_parts)
    if(_p)
      string(APPEND _weft_pc_prefix "/..")
    endif()
  endforeach()
endif()
foreach(_d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_d}}")
    set(_weft_pc_${_d} "${CMAKE_INSTALL_${_d}}")
  else()
    set(_weft_pc_${_d} "\\\${prefix}/${CMAKE_INSTALL_${_d}}")
  endif()
endforeach()
install(CODE "
  set(WEFT_PC_PREFIX \"${_weft_pc_prefix}\")
  set(WEFT_PC_LIBDIR \"${_weft_pc_LIBDIR}\")
  set(WEFT_PC_INCLUDEDIR \"${_weft_pc_INCLUDEDIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  set(WEFT_WRAPPER_EXTRA_FLAGS \"${WEFT_WRAPPER_EXTRA_FLAGS}\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/weft.pc.in\" \"${CMAKE_BINARY_DIR}/cmake/weft.pc\" @ONLY)
")
install(FILES ${CMAKE_BINARY_DIR}/cmake/weft.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${WEFT_GASNET_ROOT}")
  set(_weft_pc_GASNET_ROOT "${WEFT_GASNET_ROOT}")
else()
  set(_weft_pc_GASNET_ROOT "\\\${prefix}/${WEFT_GASNET_ROOT}")
endif()
foreach(_mode seq par parsync)
  string(TOUPPER ${_mode} _define)
  install(CODE "
    set(WEFT_PC_PREFIX \"${_weft_pc_prefix}\")
    set(WEFT_PC_LIBDIR \"${_weft_pc_LIBDIR}\")
    set(WEFT_PC_GASNET_ROOT \"${_weft_pc_GASNET_ROOT}\")
    set(WEFT_PC_MODE ${_mode})
    set(WEFT_PC_DEFINE ${_define})
    set(PROJECT_VERSION \"${PROJECT_VERSION}\")
    set(WEFT_WRAPPER_EXTRA_FLAGS \"${WEFT_WRAPPER_EXTRA_FLAGS}\")
    configure_file(\"${CMAKE_CURRENT_LIST_DIR}/gasnet-weft.pc.in\"
                   \"${CMAKE_BINARY_DIR}/cmake/gasnet-weft-${_mode}.pc\" @ONLY)
  ")
  install(FILES ${CMAKE_BINARY_DIR}/cmake/gasnet-weft-${_mode}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
