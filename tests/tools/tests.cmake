# The tools' tests: the driver, golden dry-runs, machine files, the code style.
# Included by tests/CMakeLists.txt, whose helpers (tcec_stage_tests, tcert_mpi_test,
# tcec_e2e_test) and variables (TCEC_DATA_DIR, MPI_ENV, E2E, E2E_ENV) it uses; paths are relative to
# tests/ (CMAKE_CURRENT_SOURCE_DIR).
tcec_stage_tests(tools tcec_frontend tcec_costmodel tcec_machine_file nlohmann_json::nlohmann_json)
# The golden dry-runs are checked with LLVM's FileCheck (tests/tools/golden/*.check), from the LLVM
# that find_package(Clang) loaded.
find_program(FILECHECK_EXECUTABLE FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
target_compile_definitions(tcec_tools_tests PRIVATE TCEC_FILECHECK="${FILECHECK_EXECUTABLE}")
# Generated programs of every emitter (and the sources written in the project's style) pass
# `clang-format --style=file:.clang-format --dry-run --Werror`.
find_program(CLANG_FORMAT_EXECUTABLE clang-format REQUIRED)
add_test(NAME tools.clang_format COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/clang_format_check.sh
         $<TARGET_FILE:tcec> ${CLANG_FORMAT_EXECUTABLE} ${PROJECT_SOURCE_DIR} ${TCEC_DATA_DIR}
         ${CMAKE_BINARY_DIR}/clang_format_check)
