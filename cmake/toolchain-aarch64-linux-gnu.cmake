# SPDX-License-Identifier: BSD-3-Clause
# Cross-compiles weft for aarch64 Linux with Debian's cross toolchain
# (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu) against arm64 libraries
# installed by multiarch (libfabric-dev:arm64). Test jobs, and the tools'
# --help that the manual pages include, run under qemu-user (qemu-aarch64),
# named explicitly so that no binfmt_misc registration is needed. The
# README (cross-building for aarch64) has the commands.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(WEFT_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${WEFT_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${WEFT_CROSS_TRIPLE}-g++)

# Headers and libraries from the cross sysroot and the multiarch arm64
# directories; programs (cmake, python3, the emulator) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${WEFT_CROSS_TRIPLE} /usr/lib/${WEFT_CROSS_TRIPLE})
set(CMAKE_LIBRARY_ARCHITECTURE ${WEFT_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config sees only the arm64 .pc files (and the architecture-independent
# ones), never the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${WEFT_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# The programs run under qemu-aarch64 with the arm64 loader and libraries
# at their multiarch paths (libc6:arm64 comes with libfabric1:arm64), so
# no sysroot option (-L) is given: with one naming the cross sysroot, a
# process forked under qemu 7.2 spun before its exec and oshrun never
# started its PEs.
find_program(WEFT_QEMU_AARCH64 qemu-aarch64)
if(WEFT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${WEFT_QEMU_AARCH64})
endif()
