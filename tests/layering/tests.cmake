# The layering of the sources' #include lines.
# Included by tests/CMakeLists.txt, whose helpers (tcec_stage_tests, tcert_mpi_test,
# tcec_e2e_test) and variables (TCEC_DATA_DIR, MPI_ENV, E2E, E2E_ENV) it uses; paths are relative to
# tests/ (CMAKE_CURRENT_SOURCE_DIR).
# The layering of the sources' #include lines (tests/layering/check_layering.py: stages one way,
# public headers only, the runtime apart, the compiler on runtime/spec/ only), and the checker
# itself on its fixtures (a good tree passes, a bad one fails with each rule). Plain python3.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME layering.tree COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/layering/check_layering.py
         ${PROJECT_SOURCE_DIR})
add_test(NAME layering.checker COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/layering/check_layering.py
         --self-test)
