# The runtime's tests (folders mirror runtime/): unit tests, the contract's MPI-freeness, and
# the MPI tests of tests/runtime/mpi/.
# Included by tests/CMakeLists.txt, whose helpers (tcec_stage_tests, tcert_mpi_test,
# tcec_e2e_test) and variables (TCEC_DATA_DIR, MPI_ENV, E2E, E2E_ENV) it uses; paths are relative to
# tests/ (CMAKE_CURRENT_SOURCE_DIR).
tcec_stage_tests(runtime tcert hdf5::hdf5)
# tcert_spec, the compiler–runtime contract, needs no MPI: it does not link it, and each of its
# public headers compiles alone without MPI's include directories and includes only runtime/spec/.
add_test(NAME runtime.spec_mpi_free COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/runtime/spec/spec_mpi_free.sh
         ${CMAKE_CXX_COMPILER} ${PROJECT_SOURCE_DIR} "$<TARGET_PROPERTY:tcert_spec,LINK_LIBRARIES>")
set_tests_properties(runtime.spec_mpi_free PROPERTIES LABELS sanitize-only)
# The runtime's collectives, on 1..5 ranks.
tcert_mpi_test(collectives 120 "1;2;3;4;5")
# move_tensor between placements: values, exact byte counts and the cost model's disk requests
# on 1..5 ranks.
tcert_mpi_test(placement 120 "1;2;3;4;5" tcec_costmodel)
# run_generated, the body of generated functions: repeated calls with .npy and HDF5 files, errors
# as the same Status on every rank, a sub-communicator; and (alone) the abort of a rank that
# fails while the others wait for it in a collective.
tcert_mpi_test(generated 120 "1;2;3;4" hdf5::hdf5)
add_test(NAME runtime.mpi.generated_abort COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe -np 3 $<TARGET_FILE:tcert_generated_mpi>
         --gtest_also_run_disabled_tests --gtest_filter=Generated.DISABLED_RankFailsAloneInsideACollective)
set_tests_properties(runtime.mpi.generated_abort PROPERTIES ENVIRONMENT "${MPI_ENV}" TIMEOUT 60 PROCESSORS 2 LABELS sanitize-only
  PASS_REGULAR_EXPRESSION "\\[rank 1\\] transpose: error: rank 1 fails alone \\(the other ranks did not reach the end within 1 s")
# copy_step from a .npy input with reordered dimensions and additions: through the transposing
# kernel on one rank, element by element on two.
tcert_mpi_test(copy 60 "1;2")
# GaoGemm against the cost model: random plans of every method x order on 1..5 and 9 ranks,
# and the hand-off (a kept result taken as A, B or C by a plan of any method, or flushed).
tcert_mpi_test(gemm 300 "1;2;3;4;5;9" tcec_costmodel)
# CosmaGemm against costmodel/methods/cosma/cosma.h: four shapes, in core and in rounds, on 1-6 and 8 ranks.
tcert_mpi_test(cosma 300 "1;2;3;4;5;6;8" tcec_costmodel)
# TbsGemm (triangle blocks): a hand-made family, values, exact bytes and requests, on 1, 3 and 4 ranks.
tcert_mpi_test(tbs 120 "1;3;4")
# SfcGemm (tiles along a space-filling curve, LRU panel cache): values, exact bytes and requests,
# peak memory, on 1, 3, 4 and 5 ranks.
tcert_mpi_test(sfc 120 "1;2;3;4;5")
