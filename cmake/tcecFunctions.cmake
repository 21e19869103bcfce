# tcecFunctions.cmake — tcec_add_program(): compile a .tce file (or an NWChem tree, a TAMM
# function, ...) into an MPI program at build time.
#
#   tcec_add_program(NAME SOURCE.tce
#                    [MACHINE FILE.machine]            # replaces the .tce's machine block
#                    [FROM tce|tccg|nwchem|tamm] [SECTION NAME] [FUNCTION NAME]
#                    [DEFINES NAME=VALUE ...]           # -D NAME=VALUE
#                    [PLAN_OPTIONS option ...])         # e.g. --no-overlap, --force-method cosma
#
# Runs `tcec SOURCE ... -o DIR` when SOURCE or the machine file changes, and builds the generated
# DIR/<stem>.cpp (stem: SOURCE's name, or SECTION, or FUNCTION) into the executable NAME linked against
# tcec::tcert. Needs TCEC_EXECUTABLE (set by find_package(tcec)).
function(tcec_add_program name source)
  cmake_parse_arguments(ARG "" "MACHINE;FROM;SECTION;FUNCTION" "DEFINES;PLAN_OPTIONS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tcec_add_program(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(input "${source}" ABSOLUTE)
  get_filename_component(stem "${source}" NAME_WE)
  if(ARG_SECTION)
    set(stem "${ARG_SECTION}")
  endif()
  if(ARG_FUNCTION)
    set(stem "${ARG_FUNCTION}")
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
  add_custom_command(
    OUTPUT "${dir}/${stem}.cpp"
    COMMAND "${TCEC_EXECUTABLE}" ${args} -o "${dir}"
    DEPENDS ${depends} "${TCEC_EXECUTABLE}"
    COMMENT "tcec: planning and generating ${source}"
    VERBATIM)
  add_executable(${name} "${dir}/${stem}.cpp")
  target_link_libraries(${name} PRIVATE tcec::tcert)
  target_compile_features(${name} PRIVATE cxx_std_20)
endfunction()
