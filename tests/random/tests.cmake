# Random programs for the property tests: a library and the e2e sample's tool.
# Included by tests/CMakeLists.txt, whose helpers (tcec_stage_tests, tcert_mpi_test,
# tcec_e2e_test) and variables (TCEC_DATA_DIR, MPI_ENV, E2E, E2E_ENV) it uses; paths are relative to
# tests/ (CMAKE_CURRENT_SOURCE_DIR).
add_library(tcec_random_program STATIC random/random_program.cpp)
target_include_directories(tcec_random_program PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(tcec_random_program PUBLIC fmt::fmt)
add_executable(tcec_random_program_tool random/random_program_main.cpp)
target_link_libraries(tcec_random_program_tool PRIVATE tcec_random_program)
set_target_properties(tcec_random_program_tool PROPERTIES OUTPUT_NAME tcec_random_program)
