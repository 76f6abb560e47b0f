# SPDX-License-Identifier: BSD-3-Clause
# WeftTesting.cmake: helpers that turn a test program into a matrix of real
# multi-process jobs.
#
#   weft_test_program(<target> SOURCES <files...> [DEFINITIONS <defs...>]
#                     [INTERPOSE <libraries...>])
#       Builds one test executable linked against the weft library, with the
#       project's warning flags, into the current binary directory.
#       INTERPOSE libraries are linked ahead of weft, so the dynamic linker
#       finds their definitions of shmem_ routines first (profiling tools).
#
#   weft_job_test(NAME <name>
#                 [SOURCES <files...> | PROGRAM <target>]
#                 [VARIANT <suffix>]          # e.g. swamo: name.swamo.np4.tcp
#                 [ARGS <program args...>]
#                 [NP <list>]                 # default ${WEFT_TEST_NP}
#                 [PROVIDERS <list>]          # default ${WEFT_TEST_DEFAULT_PROVIDERS}
#                 [ENV <k=v>...]
#                 [LABELS <labels...>]        # only cross-cutting sets: soak
#                 [EXPECT_FAIL_REGEX <re>...] # job must fail, output must match all
#                 [EXPECT_STATUS <n>]         # job must exit with exactly n
#                 [EXPECT_OUTPUT_REGEX <re>...] # output of a passing job must match
#                 [FAIL_TIME <s>]             # expect-* jobs must end within s (10)
#                 [TIMEOUT <s>] [PROCESSORS <n>])
#
#   Registers one ctest per (NP, provider), named
#       <group>.<name>[.<variant>].np<N>.<provider>
#   where <group> is WEFT_TEST_GROUP of the calling directory (e.g. "api").
#   Each test runs
#       cmake -E env --unset=FI_PROVIDER --unset=WEFT_PROVIDER [FI_PROVIDER=p]
#                    <ENV...> <launcher> -n <N> <program> <ARGS...>
#   so a developer's own FI_PROVIDER never leaks in and the command printed
#   by `ctest -V` can be pasted into a shell. Labels: weft_test_labels of
#   the name, plus LABELS. Filter with e.g. `ctest -L api -L np4 -L tcp`,
#   and pick tests by name with `ctest -R 'api\.amo'`.
#
#   weft_test_labels(<test> [<extra labels...>])
#       Every test, job or not, is named <area>.<name>[.<more>...], with the
#       PE count as a component np<N> and the path as one of the components
#       default, shm, tcp, sockets, mixed, hydra where they apply. Its labels
#       follow from the name: the area, np<N> and the path; extra labels
#       only for sets that scripts select (soak: long stress runs, left out
#       of scripts/test unless WEFT_SOAK=1). Call it after add_test for tests
#       not made by weft_job_test.
#
#   The "provider" names a path through the library:
#     default  nothing set: the library's choice, i.e. the direct on-node
#              path between PEs of this machine;
#     shm, tcp, sockets, net, udp  WEFT_ONNODE=0 FI_PROVIDER=<p>: every
#              PE, the calling one included, through that libfabric
#              provider (udp is udp;ofi_rxd, tcp is tcp;ofi_rxm);
#     mixed    WEFT_TOPOLOGY=nodes=2: the PEs split into two simulated nodes,
#              direct inside a node, libfabric (shm) between them (NP >= 2).
#   sockets is registered only for the NP values in WEFT_TEST_SOCKETS_NP.
#   net and udp run a lean set only (WEFT_TEST_LEAN_PROVIDERS at
#   WEFT_TEST_LEAN_NP: AMOs, RMA, ordering, counting puts, reductions,
#   GASNet active messages), named explicitly by those tests.
#
#   Any EXPECT_* option wraps the job in tests/expect-failure.sh, which also
#   enforces that the job ends (no hang) within FAIL_TIME seconds.

set(WEFT_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})
set(WEFT_TEST_PATHS default shm tcp sockets net udp mixed hydra)

function(weft_test_labels test)
  string(REPLACE "." ";" parts "${test}")
  list(GET parts 0 labels)
  list(REMOVE_AT parts 0)
  foreach(part IN LISTS parts)
    if(part MATCHES "^np[0-9]+$" OR part IN_LIST WEFT_TEST_PATHS)
      list(APPEND labels ${part})
    endif()
  endforeach()
  list(APPEND labels ${ARGN})
  list(REMOVE_DUPLICATES labels)
  set_tests_properties(${test} PROPERTIES LABELS "${labels}")
endfunction()

set(WEFT_TEST_LAUNCHER "" CACHE STRING
    "Launcher for test jobs (empty: the oshrun built here, ${CMAKE_BINARY_DIR}/bin/oshrun)")
set(WEFT_TEST_LAUNCHER_NP_FLAG "-n" CACHE STRING "Launcher option giving the number of PEs")
set(WEFT_TEST_NP "1;2;4;8" CACHE STRING "Default list of PE counts for job tests")
set(WEFT_TEST_MAX_NP "8" CACHE STRING "Skip job tests with more PEs than this")
set(WEFT_TEST_DEFAULT_PROVIDERS "default;shm;tcp;sockets;mixed" CACHE STRING
    "Default paths for job tests (see weft_job_test)")
set(WEFT_TEST_PROVIDERS "default;shm;tcp;sockets;net;udp;mixed" CACHE STRING
    "Providers test registration is limited to (drop one that is not installed)")
# sockets (deprecated, milliseconds per operation on 1.17) runs at 2 PEs: at 4
# its slowest jobs come close to the timeout on a loaded 2-core machine.
set(WEFT_TEST_SOCKETS_NP "2" CACHE STRING "PE counts at which the sockets provider is tested")
# The providers that run only the lean set: net (no native atomics) and
# udp;ofi_rxd (reliable datagrams, software atomics), at 2 and 4 PEs.
set(WEFT_TEST_LEAN_PROVIDERS "net;udp" CACHE STRING
    "Providers that run the lean set of job tests (see weft_job_test)")
set(WEFT_TEST_LEAN_NP "2;4" CACHE STRING "PE counts of the lean set")
set(WEFT_TEST_TIMEOUT "60" CACHE STRING "Default per-job timeout in seconds")
# ctest -j2 on a 2-core machine oversubscribes it with several jobs at once,
# which no PE can see: the jobs use the short, polite spin before yielding
# (the adaptive default is for PEs that own their cores; the examples and
# benchmark smoke tests still run with it).
set(WEFT_TEST_EXTRA_ENV "WEFT_SPIN_YIELD=64" CACHE STRING
    "k=v;... added to the environment of every test job")

# The launcher: WEFT_TEST_LAUNCHER, else the oshrun target of tools/, else
# the path it is built to.
function(_weft_test_launcher out)
  if(WEFT_TEST_LAUNCHER)
    set(${out} ${WEFT_TEST_LAUNCHER} PARENT_SCOPE)
  elseif(TARGET oshrun)
    set(${out} $<TARGET_FILE:oshrun> PARENT_SCOPE)
  else()
    set(${out} ${CMAKE_BINARY_DIR}/bin/oshrun PARENT_SCOPE)
  endif()
endfunction()

# Sanitized builds run a lot slower (and CI runs the suite under ASan):
# stretch the time limits rather than get spurious timeouts.
if(WEFT_SANITIZE)
  set(_weft_time_scale 3)
else()
  set(_weft_time_scale 1)
endif()
# A cross build (cmake/toolchain-aarch64-linux-gnu.cmake) runs every job
# under qemu-user, the launcher and each PE: the emulator is named before
# both, so no binfmt_misc registration is needed, and the limits stretch
# with the emulation (several times slower than native).
set(_weft_emulator "")
if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
  set(_weft_emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
  set(WEFT_TEST_EMULATOR_TIME_SCALE "5" CACHE STRING
      "Factor on job time limits when the tests run under CMAKE_CROSSCOMPILING_EMULATOR")
  math(EXPR _weft_time_scale "${_weft_time_scale} * ${WEFT_TEST_EMULATOR_TIME_SCALE}")
endif()
# Under ThreadSanitizer every job reads tests/tsan.supp (what libfabric,
# which is not instrumented, would otherwise make TSan report).
set(_weft_sanitizer_env "")
if(WEFT_SANITIZE STREQUAL "thread")
  set(_weft_sanitizer_env TSAN_OPTIONS=suppressions=${WEFT_TEST_DIR}/tsan.supp)
endif()

function(weft_test_program target)
  cmake_parse_arguments(P "" "" "SOURCES;DEFINITIONS;INTERPOSE" ${ARGN})
  if(NOT P_SOURCES)
    message(FATAL_ERROR "weft_test_program(${target}): SOURCES is required")
  endif()
  add_executable(${target} ${P_SOURCES})
  target_link_libraries(${target} PRIVATE ${P_INTERPOSE} weft)
  target_compile_options(${target} PRIVATE ${WEFT_WARNINGS})
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                               ${WEFT_TEST_DIR}/api)
  if(P_DEFINITIONS)
    target_compile_definitions(${target} PRIVATE ${P_DEFINITIONS})
  endif()
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                             ${CMAKE_CURRENT_BINARY_DIR})
endfunction()

function(weft_job_test)
  cmake_parse_arguments(T ""
    "NAME;PROGRAM;VARIANT;EXPECT_STATUS;FAIL_TIME;TIMEOUT;PROCESSORS"
    "SOURCES;ARGS;NP;PROVIDERS;ENV;LABELS;EXPECT_FAIL_REGEX;EXPECT_OUTPUT_REGEX"
    ${ARGN})
  if(NOT T_NAME)
    message(FATAL_ERROR "weft_job_test: NAME is required")
  endif()
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "weft_job_test(${T_NAME}): unknown arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  if(WEFT_TEST_GROUP)
    set(group ${WEFT_TEST_GROUP})
  else()
    set(group test)
  endif()

  # The program: built once, shared by every (NP, provider, variant).
  if(T_PROGRAM)
    set(prog ${T_PROGRAM})
  else()
    set(prog ${group}_${T_NAME})
    if(NOT TARGET ${prog})
      if(NOT T_SOURCES)
        message(FATAL_ERROR "weft_job_test(${T_NAME}): SOURCES or PROGRAM is required")
      endif()
      weft_test_program(${prog} SOURCES ${T_SOURCES})
    endif()
  endif()

  if(NOT T_NP)
    set(T_NP ${WEFT_TEST_NP})
  endif()
  if(NOT T_PROVIDERS)
    set(T_PROVIDERS ${WEFT_TEST_DEFAULT_PROVIDERS})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${WEFT_TEST_TIMEOUT})
  endif()
  math(EXPR timeout "${T_TIMEOUT} * ${_weft_time_scale}")
  # The in-program watchdog (weft_test.h) fires a little before ctest kills
  # the job, so a hang is reported with the phase it hung in.
  math(EXPR watchdog "${timeout} - 5")
  if(NOT T_FAIL_TIME)
    set(T_FAIL_TIME 10)
  endif()
  math(EXPR fail_time "${T_FAIL_TIME} * ${_weft_time_scale}")

  _weft_test_launcher(launcher)
  set(base ${group}.${T_NAME})
  if(T_VARIANT)
    set(base ${base}.${T_VARIANT})
  endif()

  set(wrap "")
  if(DEFINED T_EXPECT_STATUS OR DEFINED T_EXPECT_FAIL_REGEX OR DEFINED T_EXPECT_OUTPUT_REGEX)
    set(wrap ${WEFT_TEST_DIR}/expect-failure.sh --time ${fail_time})
    if(DEFINED T_EXPECT_STATUS)
      list(APPEND wrap --status ${T_EXPECT_STATUS})
    elseif(DEFINED T_EXPECT_FAIL_REGEX)
      list(APPEND wrap --status nonzero)
    else()
      list(APPEND wrap --status 0)
    endif()
    foreach(re IN LISTS T_EXPECT_FAIL_REGEX T_EXPECT_OUTPUT_REGEX)
      list(APPEND wrap --regex ${re})
    endforeach()
    list(APPEND wrap --)
    # The driver's bound must end the job before ctest does.
    math(EXPR min_timeout "${fail_time} + 15")
    if(timeout LESS min_timeout)
      set(timeout ${min_timeout})
    endif()
  endif()

  foreach(prov IN LISTS T_PROVIDERS)
    if(NOT prov IN_LIST WEFT_TEST_PROVIDERS)
      continue()
    endif()
    foreach(np IN LISTS T_NP)
      if(np GREATER WEFT_TEST_MAX_NP)
        continue()
      endif()
      if(prov STREQUAL "sockets" AND NOT np IN_LIST WEFT_TEST_SOCKETS_NP)
        continue()
      endif()
      if(prov STREQUAL "mixed" AND np LESS 2)
        continue()
      endif()
      set(env --unset=FI_PROVIDER --unset=WEFT_PROVIDER --unset=WEFT_ONNODE
              --unset=WEFT_TOPOLOGY)
      if(prov STREQUAL "mixed")
        list(APPEND env WEFT_TOPOLOGY=nodes=2)
      elseif(NOT prov STREQUAL "default")
        list(APPEND env FI_PROVIDER=${prov} WEFT_ONNODE=0)
      endif()
      if(prov STREQUAL "net" AND WEFT_SANITIZE AND NOT WEFT_SANITIZE STREQUAL "thread")
        list(APPEND env LSAN_OPTIONS=suppressions=${WEFT_TEST_DIR}/lsan-net.supp)
      endif()
      list(APPEND env WT_TIMEOUT=${watchdog} ${_weft_sanitizer_env} ${WEFT_TEST_EXTRA_ENV}
                      ${T_ENV})
      set(name ${base}.np${np}.${prov})
      add_test(NAME ${name}
               COMMAND ${wrap} ${CMAKE_COMMAND} -E env ${env}
                       ${_weft_emulator} ${launcher} ${WEFT_TEST_LAUNCHER_NP_FLAG} ${np}
                       ${_weft_emulator} $<TARGET_FILE:${prog}> ${T_ARGS})
      if(T_PROCESSORS)
        set(procs ${T_PROCESSORS})
      else()
        set(procs ${np})
      endif()
      set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} PROCESSORS ${procs})
      weft_test_labels(${name} ${T_LABELS})
    endforeach()
  endforeach()
endfunction()
