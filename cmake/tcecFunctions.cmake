# tcecFunctions.cmake — compile a .tce file (or an NWChem tree, a TAMM function, ...) at build
# time into an MPI program (tcec_add_program) or into a library function for your own MPI program
# (tcec_add_library).
#
#   tcec_add_program(NAME SOURCE.tce
#                    [MACHINE FILE.machine]            # replaces the .tce's machine block
#                    [FROM tce|tccg|nwchem|tamm] [SECTION NAME] [FUNCTION NAME]
#                    [DEFINES NAME=VALUE ...]           # -D NAME=VALUE
#                    [PLAN_OPTIONS option ...])         # e.g. --no-overlap, --force-method cosma
#
# Runs `tcec SOURCE ... -o DIR` when SOURCE or the machine file changes, and builds the generated
# DIR/<stem>.cpp (stem: SOURCE's name, or SECTION, or FUNCTION) into the executable NAME linked against
# tcec::tcert.
#
#   tcec_add_library(NAME SOURCE.tce [MACHINE ...] [FROM ...] [SECTION ...] [FUNCTION ...] [DEFINES ...] [PLAN_OPTIONS ...])
#
# The same options; runs `tcec SOURCE ... --emit library -o DIR` and builds DIR/<f>.cpp into the
# static library NAME linked against tcec::tcert, whose include directory holds DIR/<f>.h (f: the
# stem made a C++ identifier, e.g. `square` → square.h declaring tcec_gen::square(comm, tensors,
# options); runtime/program/generated.h says what a call does). Link NAME to the program that calls it.
#
# Both need TCEC_EXECUTABLE (set by find_package(tcec)).

# Adds the custom command that runs tcec for target `name`; sets ${out_dir} to its output
# directory and ${out_stem} to the generated files' stem.
function(_tcec_generate name source form out_dir out_stem)
  cmake_parse_arguments(ARG "" "MACHINE;FROM;SECTION;FUNCTION" "DEFINES;PLAN_OPTIONS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tcec_add_${form}(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(input "${source}" ABSOLUTE)
  get_filename_component(stem "${source}" NAME_WE)
  if(ARG_SECTION)
    set(stem "${ARG_SECTION}")
  endif()
  if(ARG_FUNCTION)
    set(stem "${ARG_FUNCTION}")
  endif()
  if(form STREQUAL "library")
    # tcec names the library's files after the function: the stem as a C++ identifier.
    string(REGEX REPLACE "[^A-Za-z0-9_]" "_" stem "${stem}")
    string(REGEX REPLACE "__+" "_" stem "${stem}")
    if(NOT stem MATCHES "^[A-Za-z]")
      string(REGEX REPLACE "^_" "" stem "${stem}")
      set(stem "tcec_${stem}")
    endif()
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/tcec_${name}")
  set(args "${input}")
  set(depends "${input}")
  if(ARG_MACHINE)
    get_filename_component(machine "${ARG_MACHINE}" ABSOLUTE)
    list(APPEND args --machine "${machine}")
    list(APPEND depends "${machine}")
  endif()
  if(ARG_FROM)
    list(APPEND args --from "${ARG_FROM}")
  endif()
  if(ARG_SECTION)
    list(APPEND args --section "${ARG_SECTION}")
  endif()
  if(ARG_FUNCTION)
    list(APPEND args --function "${ARG_FUNCTION}")
  endif()
  foreach(define IN LISTS ARG_DEFINES)
    list(APPEND args -D "${define}")
  endforeach()
  list(APPEND args ${ARG_PLAN_OPTIONS})
  set(outputs "${dir}/${stem}.cpp")
  if(form STREQUAL "library")
    list(APPEND outputs "${dir}/${stem}.h")
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${TCEC_EXECUTABLE}" ${args} --emit ${form} -o "${dir}"
    DEPENDS ${depends} "${TCEC_EXECUTABLE}"
    COMMENT "tcec: planning and generating ${source} (${form})"
    VERBATIM)
  set(${out_dir} "${dir}" PARENT_SCOPE)
  set(${out_stem} "${stem}" PARENT_SCOPE)
endfunction()

function(tcec_add_program name source)
  _tcec_generate(${name} "${source}" program dir stem ${ARGN})
  add_executable(${name} "${dir}/${stem}.cpp")
  target_link_libraries(${name} PRIVATE tcec::tcert)
  target_compile_features(${name} PRIVATE cxx_std_20)
endfunction()

function(tcec_add_library name source)
  _tcec_generate(${name} "${source}" library dir stem ${ARGN})
  add_library(${name} STATIC "${dir}/${stem}.cpp" "${dir}/${stem}.h")
  target_include_directories(${name} PUBLIC "${dir}")
  target_link_libraries(${name} PUBLIC tcec::tcert)
  target_compile_features(${name} PUBLIC cxx_std_20)
endfunction()
