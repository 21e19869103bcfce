# The frontend's tests, with the fuzz targets' regression inputs.
# Included by tests/CMakeLists.txt, whose helpers (tcec_stage_tests, tcert_mpi_test,
# tcec_e2e_test) and variables (TCEC_DATA_DIR, MPI_ENV, E2E, E2E_ENV) it uses; paths are relative to
# tests/ (CMAKE_CURRENT_SOURCE_DIR).
tcec_stage_tests(frontend tcec_frontend)
# frontend.FuzzRegressions holds the regression inputs to the fuzz targets' own requirements.
target_sources(tcec_frontend_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_check.cpp)
target_include_directories(tcec_frontend_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
