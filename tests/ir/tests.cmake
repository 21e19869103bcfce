# The ir stage's tests.
# Included by tests/CMakeLists.txt, whose helpers (tcec_stage_tests, tcert_mpi_test,
# tcec_e2e_test) and variables (TCEC_DATA_DIR, MPI_ENV, E2E, E2E_ENV) it uses; paths are relative to
# tests/ (CMAKE_CURRENT_SOURCE_DIR).
tcec_stage_tests(ir tcec_ir tcec_frontend tcert_spec)
