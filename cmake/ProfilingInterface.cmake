# SPDX-License-Identifier: BSD-3-Clause
# ProfilingInterface.cmake builds the OpenSHMEM profiling interface of
# libweft from the library's compiled objects (docs/profiling.md).
#
#   cmake -DWEFT_CC=<cc> -DWEFT_CXX=<c++> -DWEFT_CXX_ID=<GNU|Clang|...>
#         -DWEFT_READELF=<readelf> -DWEFT_OBJCOPY=<objcopy>
#         -DWEFT_INCLUDE_DIR=<include/> -DWEFT_GENERATED_INCLUDE_DIR=<build include/>
#         -DOUT_OBJECT=<o> -DOUT_SCRIPT=<ld>
#         -DOUT_HEADER=<pshmem.h> -P ProfilingInterface.cmake <objects...>
#
# The routines are the functions the objects export (global, default
# visibility), except weftx_info_* (the info interface for weft's own tools,
# include/weft/info.h) and weft_* (the names the public headers' macros expand
# to). Then
#   OUT_OBJECT  the objects linked into one relocatable object in which every
#               routine is weak: where a tool's definition and weft's meet
#               in one link, the tool's wins instead of clashing (at run
#               time the first in load order wins anyway);
#   OUT_SCRIPT  an implicit linker script with `pNAME = NAME;` for each
#               routine: the p-name is a strong global symbol at the same
#               address, the entry point a tool forwards to;
#   OUT_HEADER  pshmem.h, declaring every p-name with the type of its
#               original (__typeof__), so it cannot disagree with shmem.h.
# All three come from one list, so no routine can miss its twin.
cmake_minimum_required(VERSION 3.20)

foreach(var WEFT_CC WEFT_CXX WEFT_CXX_ID WEFT_READELF WEFT_OBJCOPY WEFT_INCLUDE_DIR
            WEFT_GENERATED_INCLUDE_DIR OUT_OBJECT OUT_SCRIPT OUT_HEADER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ProfilingInterface.cmake: -D${var}=... is required")
  endif()
endforeach()

# The objects: the arguments after the script's name.
set(objects "")
set(after_script FALSE)
math(EXPR last_arg "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last_arg})
  if(after_script)
    list(APPEND objects "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "-P")
    math(EXPR script_arg "${i} + 1")
  elseif(DEFINED script_arg AND i EQUAL script_arg)
    set(after_script TRUE)
  endif()
endforeach()
if(NOT objects)
  message(FATAL_ERROR "ProfilingInterface.cmake: no objects given")
endif()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " cmd)
    message(FATAL_ERROR "ProfilingInterface.cmake: `${cmd}` failed (${rc}):\n${out}${err}")
  endif()
endfunction()

# One relocatable object: objcopy then rewrites one file, and the library is
# linked from exactly what was rewritten.
set(combined "${OUT_OBJECT}.combined.o")
run(${WEFT_CC} -r -nostdlib -o ${combined} ${objects})

# readelf -W columns: Num: Value Size Type Bind Vis Ndx Name.
set(symtab "${OUT_OBJECT}.symbols.txt")
execute_process(COMMAND ${WEFT_READELF} -sW ${combined} OUTPUT_FILE ${symtab}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ProfilingInterface.cmake: ${WEFT_READELF} -sW ${combined} failed")
endif()
file(STRINGS ${symtab} exported REGEX " FUNC +GLOBAL +DEFAULT +[0-9]+ ")
file(REMOVE ${symtab})
set(routines "")
foreach(line IN LISTS exported)
  string(REGEX REPLACE ".* ([^ ]+)$" "\\1" name "${line}")
  if(NOT name MATCHES "^(weft_|weftx_info_)")
    list(APPEND routines ${name})
  endif()
endforeach()
list(SORT routines)
list(REMOVE_DUPLICATES routines)
# A parse that found nothing (or lost the core routines) must not produce a
# library without its profiling names.
foreach(required shmem_init shmem_finalize shmem_putmem shmem_pcontrol)
  if(NOT required IN_LIST routines)
    message(FATAL_ERROR "ProfilingInterface.cmake: ${required} not found among the "
                        "exported functions of ${combined} (readelf output format?)")
  endif()
endforeach()

list(JOIN routines "\n" weak_list)
file(WRITE "${OUT_OBJECT}.weak.txt" "${weak_list}\n")
run(${WEFT_OBJCOPY} --weaken-symbols=${OUT_OBJECT}.weak.txt ${combined} ${OUT_OBJECT})
file(REMOVE ${combined})

# The routines whose p-name is declared for C only: those whose plain name
# is an overload set in C++ (the generic names that weft/cxx.h overloads
# next to a C routine, typed names given std::complex overloads), where
# __typeof__ cannot pick one, or is not declared there at all (shmem.h
# hides some from C++). The C++ compiler says which: every routine's
# __typeof__ on its own line of a probe, and the lines it rejects.
set(probe "${OUT_OBJECT}.cxx-probe.cc")
set(probe_text "#include <shmem.h>\n#include <shmemx.h>\nextern \"C\" {\n")
set(first_probe_line 4)
foreach(name IN LISTS routines)
  string(APPEND probe_text "__typeof__(${name}) weft_cxx_probe_${name};\n")
endforeach()
string(APPEND probe_text "}\n")
file(WRITE ${probe} "${probe_text}")
set(unlimited_errors "")
if(WEFT_CXX_ID MATCHES "Clang")
  set(unlimited_errors -ferror-limit=0)
elseif(WEFT_CXX_ID STREQUAL "GNU")
  set(unlimited_errors -fmax-errors=0)
endif()
execute_process(COMMAND ${WEFT_CXX} ${unlimited_errors} -fsyntax-only -I${WEFT_INCLUDE_DIR}
                        -I${WEFT_GENERATED_INCLUDE_DIR}
                        ${probe}
                RESULT_VARIABLE probe_rc ERROR_VARIABLE probe_errors OUTPUT_VARIABLE probe_out)
get_filename_component(probe_file ${probe} NAME)
string(REGEX MATCHALL "${probe_file}:[0-9]+:[0-9]*:? *(fatal )?error" rejected "${probe_errors}")
set(c_only "")
foreach(hit IN LISTS rejected)
  string(REGEX REPLACE "^${probe_file}:([0-9]+):.*" "\\1" line "${hit}")
  math(EXPR index "${line} - ${first_probe_line}")
  list(GET routines ${index} name)
  list(APPEND c_only ${name})
endforeach()
list(REMOVE_DUPLICATES c_only)
list(LENGTH c_only n_c_only)
list(LENGTH routines n_routines)
# Rejections other than at a probe line, or of a large share of the
# routines, mean the probe itself failed (headers not C++-clean?).
if((NOT probe_rc EQUAL 0 AND n_c_only EQUAL 0) OR n_c_only GREATER 100)
  message(FATAL_ERROR "ProfilingInterface.cmake: the C++ probe of the routines failed "
                      "(${n_c_only} of ${n_routines} rejected):\n${probe_errors}")
endif()
file(REMOVE ${probe})

set(script "/* Generated by cmake/ProfilingInterface.cmake: the profiling name of\n"
           " * every exported routine, at the routine's address. */\n")
set(decls "")
set(c_decls "")
foreach(name IN LISTS routines)
  string(APPEND script "p${name} = ${name};\n")
  if(name IN_LIST c_only)
    string(APPEND c_decls "__typeof__(${name}) p${name};\n")
  else()
    string(APPEND decls "__typeof__(${name}) p${name};\n")
  endif()
endforeach()
file(WRITE ${OUT_SCRIPT} "${script}")

file(WRITE ${OUT_HEADER} "\
/* pshmem.h: the profiling interface of weft (OpenSHMEM 1.5 \"Profiling
 * Interface\"): every routine of shmem.h and shmemx.h under its profiling
 * name, p + name (pshmem_putmem, pshmemx_team_split_type, pstart_pes,
 * p_my_pe), ${n_routines} in all. Generated at build time by
 * cmake/ProfilingInterface.cmake from the routines libweft exports; edits
 * are lost.
 *
 * A profiling tool defines the plain names it wants to observe and forwards
 * to the p names, which always reach weft; see docs/profiling.md. Each
 * declaration takes its type from the plain name's (__typeof__), so they
 * agree by construction. The generic routines are macros (C) or overloads
 * (C++) over the typed ones: a tool sees their calls as the typed routine. */
#ifndef PSHMEM_H
#define PSHMEM_H

#include <shmem.h>
#include <shmemx.h>

#ifdef __cplusplus
extern \"C\" {
#endif

/* Like shmem.h: the library's interface has default visibility even in a
 * tool built with -fvisibility=hidden. */
#pragma GCC visibility push(default)

${decls}
#ifndef __cplusplus
/* C only: in C++ their plain names are overloaded (weft/cxx.h) or not
 * declared; a C++ tool declares the p name it needs with the C type. */
${c_decls}#endif

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
")
