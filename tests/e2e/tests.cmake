# End to end: tcec generates and builds a program, mpirun runs it out of core with --verify and
# --trace, and `tcec compare` checks measured = predicted bytes on every rank.
# Included by tests/CMakeLists.txt, whose helpers (tcec_stage_tests, tcert_mpi_test,
# tcec_e2e_test) and variables (TCEC_DATA_DIR, MPI_ENV, E2E, E2E_ENV) it uses; paths are relative to
# tests/ (CMAKE_CURRENT_SOURCE_DIR).
# All 36 method x order combinations on a rectangular product with a transposed operand.
foreach(method inside-rotation inside-replication inside-accumulation outside-rotation outside-replication
        outside-accumulation)
  foreach(order ABC ACB BAC BCA CAB CBA)
    tcec_e2e_test(matmul_rect.${method}.${order} ${E2E}/matmul_rect.tce --force-method ${method} --force-order ${order})
  endforeach()
endforeach()
# Real shapes with numpy inputs and a numpy.einsum reference: the 4-index transform (A[a,b,c,p]
# with B[p,d]) and a CCSD contraction of the TCCG set with permuted operands and -=.
tcec_e2e_test(four_index.npy ${PROJECT_SOURCE_DIR}/examples/four_index.tce -D N=12)
set_property(TEST e2e.four_index.npy APPEND PROPERTY ENVIRONMENT
  "NPY_EINSUM=abcp,pd->abcd;NPY_SHAPES={\"A\": [12, 12, 12, 12], \"B\": [12, 12]};NPY_INPUTS=A B;NPY_OUTPUT=T1")
tcec_e2e_test(ccsd_tccg.npy ${E2E}/ccsd_tccg.tce)
set_property(TEST e2e.ccsd_tccg.npy APPEND PROPERTY ENVIRONMENT
  "NPY_EINSUM=aebf,dfce->abcd;NPY_SHAPES={\"X\": [12, 10, 10, 8], \"Y\": [11, 8, 9, 10]};NPY_INPUTS=X Y;NPY_OUTPUT=Z;NPY_ALPHA=-1")
foreach(method outside-rotation outside-accumulation)
  tcec_e2e_test(ccsd_tccg.${method} ${E2E}/ccsd_tccg.tce --force-method ${method})
endforeach()
# tcec-ccsd on water from psi4 (integrals and reference energies in the test), P = 4, out of
# core: STO-3G with 16 KB per rank, also killed and resumed; 6-31G with 256 KB per rank
# (v_pppp is 512 KB) and the integrals in one HDF5 file. And STO-3G on one rank with 1 MB, also
# stopped after 3 iterations and resumed: the vectors it writes held in memory (128 KB of them:
# older ones let go). The first two give --equations data/nwchem_tce_equation_trees.txt; the
# one-rank case none, running on tcec-ccsd's built-in equations.
foreach(case sto-3g:16KB:resume:4:file 6-31g:256KB:h5:4:file sto-3g:1MB:stop:1:builtin)
  string(REPLACE ":" ";" case ${case})
  list(GET case 0 basis)
  list(GET case 1 memory)
  list(GET case 2 resume)
  list(GET case 3 np)
  list(GET case 4 equations)
  set(name e2e.ccsd.h2o.${basis})
  if(np EQUAL 1)
    set(name ${name}.one_rank)
  endif()
  if(equations STREQUAL "file")
    set(equations ${TCEC_DATA_DIR}/nwchem_tce_equation_trees.txt)
  else()
    set(equations -)
  endif()
  add_test(NAME ${name} COMMAND bash ${E2E}/ccsd.sh $<TARGET_FILE:tcec-ccsd>
           ${equations} ${CMAKE_BINARY_DIR}/e2e/ccsd_${basis}_${np} h2o ${basis}
           ${memory} ${resume} ${np})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 600)
  if(resume STREQUAL "resume")  # alone: the script must see the 3rd of iterations 0.3 s apart to kill the run
    set_tests_properties(${name} PROPERTIES PROCESSORS 2)
  endif()
endforeach()
# A generated program in bad situations: clear messages, non-zero exits, no hangs, no output left.
add_test(NAME e2e.program_errors COMMAND bash ${E2E}/program_errors.sh $<TARGET_FILE:tcec> ${CMAKE_BINARY_DIR}/e2e/program_errors)
set_tests_properties(e2e.program_errors PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 600)
# Names and paths reach generated C++ only escaped: a program from a path holding quotes, a
# backslash, `*/` and a newline compiles, runs and verifies.
# Symmetry blocks: the dry-run's stored elements and flops against an independent count over the
# TCE's block loops.
add_test(NAME e2e.symmetry_blocks COMMAND bash ${E2E}/symmetry_blocks.sh $<TARGET_FILE:tcec>
         ${CMAKE_BINARY_DIR}/e2e/symmetry_blocks)
add_test(NAME e2e.odd_path COMMAND bash ${E2E}/odd_path.sh $<TARGET_FILE:tcec> ${CMAKE_BINARY_DIR}/e2e/odd_path)
set_tests_properties(e2e.odd_path PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300)
# Inputs and outputs in HDF5 files (--input/--output FILE.h5, parallel HDF5) against h5py and
# numpy: the matrix product out of core and a program with two outputs (one a scalar); missing
# datasets, wrong shapes and dtypes, an output that cannot be renamed into place.
add_test(NAME e2e.hdf5 COMMAND bash ${E2E}/hdf5.sh $<TARGET_FILE:tcec> ${CMAKE_BINARY_DIR}/e2e/hdf5)
set_tests_properties(e2e.hdf5 PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300 PROCESSORS 2)
# A rank killed while the program runs: the job ends within seconds, naming the rank.
add_test(NAME e2e.rank_failure COMMAND bash ${E2E}/rank_failure.sh $<TARGET_FILE:tcec> ${CMAKE_BINARY_DIR}/e2e/rank_failure)
set_tests_properties(e2e.rank_failure PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300 PROCESSORS 2)
# A program stopped anywhere (in a contraction, between steps, writing its outputs) continues
# with --checkpoint DIR --resume to the same bytes; foreign or changed checkpoints are refused.
# In four parts that CTest runs side by side (each mostly waits on its ranks' start and stop).
foreach(part steps within within_more refusals)
  add_test(NAME e2e.resume.${part} COMMAND bash ${E2E}/resume.sh $<TARGET_FILE:tcec> ${CMAKE_BINARY_DIR}/e2e/resume_${part}
           ${part})
  set_tests_properties(e2e.resume.${part} PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 600)
endforeach()
# tcec-calibrate on 2 ranks: every property of the machine file, and tcec plans with it.
add_test(NAME e2e.calibrate COMMAND bash ${E2E}/calibrate.sh $<TARGET_FILE:tcec> $<TARGET_FILE:tcec-calibrate>
         ${CMAKE_BINARY_DIR}/e2e/calibrate)
set_tests_properties(e2e.calibrate PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300 PROCESSORS 2)
add_test(NAME e2e.package COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/package/package.sh ${CMAKE_BINARY_DIR}
         ${CMAKE_BINARY_DIR}/e2e/package)
set_tests_properties(e2e.package PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 600 PROCESSORS 2)
# On 2 emulated nodes of 2 ranks (tests/e2e/on_node.sh: mount namespaces; skipped without root):
# node-local scratch, shared paths that only one node sees refused with the rank, host and path.
add_test(NAME e2e.cluster COMMAND bash ${E2E}/cluster.sh $<TARGET_FILE:tcec> ${CMAKE_BINARY_DIR}/e2e/cluster)
set_tests_properties(e2e.cluster PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 600 SKIP_RETURN_CODE 77)
# The library form on 2 emulated nodes with node-local scratch, its tensors as each rank's part
# in memory (tests/e2e/cluster_parts.sh).
add_test(NAME e2e.cluster.parts COMMAND bash ${E2E}/cluster_parts.sh $<TARGET_FILE:tcert_generated_mpi>
         ${CMAKE_BINARY_DIR}/e2e/cluster_parts)
set_tests_properties(e2e.cluster.parts PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300 SKIP_RETURN_CODE 77)
# tcec-ccsd on the same emulated nodes: node-local scratch, the work directory on a shared
# --checkpoint DIR, the compiled residuals sent to each node (docs/cluster.md).
add_test(NAME e2e.cluster.ccsd COMMAND bash ${E2E}/cluster_ccsd.sh $<TARGET_FILE:tcec-ccsd>
         ${CMAKE_BINARY_DIR}/e2e/cluster_ccsd)
set_tests_properties(e2e.cluster.ccsd PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 900 SKIP_RETURN_CODE 77)
# A scratch disk that fills up (a 1 MB tmpfs; skipped where mounting is not allowed): a clean error.
add_test(NAME e2e.disk_full COMMAND bash ${E2E}/disk_full.sh $<TARGET_FILE:tcec> ${CMAKE_BINARY_DIR}/e2e/disk_full)
set_tests_properties(e2e.disk_full PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300 SKIP_RETURN_CODE 77)
# Out of core for real (docs/out-of-core.md): the 4-index step with N = 80 (A 328 MB) inside a
# memory cgroup that counts the page cache, A at least 4 times its limit (tools/ooc-regime.sh;
# skipped without root or a memory cgroup): on one rank and on two in 78 MB (room for each rank's
# own memory, about 28 MB, and the page cache a stream needs; in 64 MB one rank left so little
# that reclaim took pages before their use and the device read up to 49% more than asked for). Checked against numpy,
# measured = predicted bytes, device bytes traced; then (ooc_regime.device.*) the bytes each
# rank made the device read and write held to the predicted disk bytes (tcec compare --device)
# plus a slack: 32 MiB per rank, 96 MiB for the one rank in 78 MB, whose device read 2-20% more
# than the 328 MB asked for over runs (its code and read-ahead pages taken by reclaim and read again).
# ooc_regime.direct: the two ranks on a machine whose reads of 64 KiB or more bypass the page cache
# (direct_read_bytes; docs/out-of-core.md "Direct reads").
foreach(case "small;78;1;96;0" "p2;78;2;32;0" "direct;78;2;32;64")
  list(GET case 0 name)
  list(GET case 1 limit)
  list(GET case 2 np)
  list(GET case 3 slack)
  list(GET case 4 direct_kib)
  add_test(NAME e2e.ooc_regime.${name} COMMAND bash ${E2E}/ooc_regime.sh $<TARGET_FILE:tcec>
           ${CMAKE_BINARY_DIR}/e2e/ooc_regime_${name} ${limit} 80 ${np} ${direct_kib})
  set_tests_properties(e2e.ooc_regime.${name} PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300 SKIP_RETURN_CODE 77
    RESOURCE_LOCK ooc_regime FIXTURES_SETUP ooc_regime_${name})
  add_test(NAME e2e.ooc_regime.device.${name} COMMAND bash ${E2E}/ooc_device.sh $<TARGET_FILE:tcec>
           ${CMAKE_BINARY_DIR}/e2e/ooc_regime_${name}/trace.json ${slack})
  set_tests_properties(e2e.ooc_regime.device.${name} PROPERTIES SKIP_RETURN_CODE 77
    FIXTURES_REQUIRED ooc_regime_${name})
endforeach()

# TBS through generated programs, values against numpy: C = 0.5·A·Aᵀ on 4 ranks and on 3 (blocks
# dealt unevenly), and a symmetric 4-index result with permuted operands; the default plan of
# the matrix case (whichever method the planner picks) too.
foreach(case syrk.tbs syrk4.tbs syrk.default)
  string(REPLACE "." ";" parts ${case})
  list(GET parts 0 stem)
  list(GET parts 1 how)
  if(how STREQUAL "tbs")
    tcec_e2e_test(${case} ${E2E}/${stem}.tce --force-method tbs)
  else()
    tcec_e2e_test(${case} ${E2E}/${stem}.tce)
  endif()
  set_property(TEST e2e.${case} APPEND PROPERTY ENVIRONMENT "NPY_PROGRAM=1")
endforeach()
set(E2E_MACHINE ${E2E}/tiny_slow_read.machine)   # reads dear: a short K streams panels of A's rows
tcec_e2e_test(syrk_short.tbs ${E2E}/syrk_short.tce --force-method tbs)
unset(E2E_MACHINE)
set_property(TEST e2e.syrk_short.tbs APPEND PROPERTY ENVIRONMENT "NPY_PROGRAM=1")
add_test(NAME e2e.syrk.tbs_np3 COMMAND bash ${E2E}/run_generated.sh $<TARGET_FILE:tcec> ${CMAKE_BINARY_DIR}/e2e/syrk.tbs_np3
         ${E2E}/syrk.tce 3 --machine ${E2E}/tiny3.machine --force-method tbs)
set_tests_properties(e2e.syrk.tbs_np3 PROPERTIES ENVIRONMENT "${E2E_ENV};NPY_PROGRAM=1" TIMEOUT 300)
# SFC through generated programs: P = 4 and 5, the CCSD case against numpy (permuted operands,
# -=), and a program adding into its results (C's current tiles read) against numpy. On these
# machines the plans replicate along K (c = 2 on 4 ranks, c = 5 on 5); on a slow network the
# plan does not (c = 1).
tcec_e2e_test(matmul_rect.sfc ${E2E}/matmul_rect.tce --force-method sfc)
set(E2E_MACHINE ${E2E}/tiny_slow_net.machine)
tcec_e2e_test(matmul_rect.sfc_c1 ${E2E}/matmul_rect.tce --force-method sfc)
unset(E2E_MACHINE)
add_test(NAME e2e.matmul_rect.sfc_np5 COMMAND bash ${E2E}/run_generated.sh $<TARGET_FILE:tcec>
         ${CMAKE_BINARY_DIR}/e2e/matmul_rect.sfc_np5 ${E2E}/matmul_rect.tce 5 --machine ${E2E}/tiny5.machine
         --force-method sfc)
set_tests_properties(e2e.matmul_rect.sfc_np5 PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300)
tcec_e2e_test(ccsd_tccg.sfc.npy ${E2E}/ccsd_tccg.tce --force-method sfc)
set_property(TEST e2e.ccsd_tccg.sfc.npy APPEND PROPERTY ENVIRONMENT
  "NPY_EINSUM=aebf,dfce->abcd;NPY_SHAPES={\"X\": [12, 10, 10, 8], \"Y\": [11, 8, 9, 10]};NPY_INPUTS=X Y;NPY_OUTPUT=Z;NPY_ALPHA=-1")
tcec_e2e_test(chain_add.sfc ${E2E}/chain_add.tce -D N=60 --force-method sfc)
set_property(TEST e2e.chain_add.sfc APPEND PROPERTY ENVIRONMENT "NPY_PROGRAM=1")
# COSMA through generated programs: P = 4, and P = 5 (prime); the CCSD case against numpy.
tcec_e2e_test(matmul_rect.cosma ${E2E}/matmul_rect.tce --force-method cosma)
add_test(NAME e2e.matmul_rect.cosma_np5 COMMAND bash ${E2E}/run_generated.sh $<TARGET_FILE:tcec>
         ${CMAKE_BINARY_DIR}/e2e/matmul_rect.cosma_np5 ${E2E}/matmul_rect.tce 5 --machine ${E2E}/tiny5.machine
         --force-method cosma)
set_tests_properties(e2e.matmul_rect.cosma_np5 PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300)
set(E2E_MACHINE ${E2E}/small4.machine)
tcec_e2e_test(ccsd_tccg.cosma.npy ${E2E}/ccsd_tccg.tce --force-method cosma)
unset(E2E_MACHINE)
set_property(TEST e2e.ccsd_tccg.cosma.npy APPEND PROPERTY ENVIRONMENT
  "NPY_EINSUM=aebf,dfce->abcd;NPY_SHAPES={\"X\": [12, 10, 10, 8], \"Y\": [11, 8, 9, 10]};NPY_INPUTS=X Y;NPY_OUTPUT=Z;NPY_ALPHA=-1")
# Programs of many statements (chained accumulation, intermediates, P(n) terms as permuted
# copies and contractions), every output checked against numpy running the same statements:
# the CCD terms example and NWChem's CCSD energy, T1, T2 and CCD T2 trees with O = 4, V = 8
# (v_pppp is 32 KB against tiny.machine's 16 KB: out of core).
tcec_e2e_test(ccd_terms.program ${PROJECT_SOURCE_DIR}/examples/ccd_terms.tce -D O=4 -D V=8)
set_property(TEST e2e.ccd_terms.program APPEND PROPERTY ENVIRONMENT "NPY_PROGRAM=1")
# Resident accumulation (write-avoiding across statements): the CCD terms on a machine whose
# writes are dear (chosen by time, r2 written once) and NWChem's T1 and T2 trees with every group
# that fits (--resident all); values against numpy, bytes against the prediction.
set(E2E_MACHINE ${E2E}/tiny_dear_writes.machine)
tcec_e2e_test(ccd_terms.resident ${PROJECT_SOURCE_DIR}/examples/ccd_terms.tce -D O=4 -D V=8)
unset(E2E_MACHINE)
set_property(TEST e2e.ccd_terms.resident APPEND PROPERTY ENVIRONMENT "NPY_PROGRAM=1;EXPECT_RESIDENT=1")
foreach(section ccsd_t1 ccsd_t2)
  tcec_e2e_test(nwchem.${section}.resident ${TCEC_DATA_DIR}/nwchem_tce_equation_trees.txt --from nwchem
                --section ${section} -D O=4 -D V=8 --resident all)
  set_property(TEST e2e.nwchem.${section}.resident APPEND PROPERTY ENVIRONMENT "NPY_PROGRAM=1;EXPECT_RESIDENT=1")
endforeach()
foreach(section ccsd_e ccsd_t1 ccsd_t2 ccd_t2)
  tcec_e2e_test(nwchem.${section} ${TCEC_DATA_DIR}/nwchem_tce_equation_trees.txt --from nwchem
                --section ${section} -D O=4 -D V=8)
  set_property(TEST e2e.nwchem.${section} APPEND PROPERTY ENVIRONMENT "NPY_PROGRAM=1")
endforeach()
# TAMM's spin-orbital CCSD (--from tamm, the shared C++ file) against NWChem's TCE trees of the
# same equations (--from nwchem): both programs generated, run out of core on 4 ranks (O = 4,
# V = 8 on tiny.machine) on the same spin-orbital inputs, their results equal to 1e-12
# (tests/e2e/orbital_check.py); ccsd_t2 updates t2 in place and must give it back unchanged.
foreach(case "ccsd_e;de=i0" "ccsd_t1;i0=i0" "ccsd_t2;i0=i0;--input;t2=t2_pphh")
  list(GET case 0 function)
  list(SUBLIST case 1 -1 pairs)
  add_test(NAME e2e.tamm.${function} COMMAND bash ${E2E}/tamm_vs_nwchem.sh $<TARGET_FILE:tcec>
           ${CMAKE_BINARY_DIR}/e2e/tamm/${function} ${TCEC_DATA_DIR}/tamm_ccsd_canonical_e_t1_t2.hpp.txt
           ${TCEC_DATA_DIR}/nwchem_tce_equation_trees.txt ${function} 4 4 8 ${E2E}/tiny.machine ${pairs})
  set_tests_properties(e2e.tamm.${function} PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300)
endforeach()
# The sequence hand-off run by generated programs: intermediates stay on the ranks and later
# contractions take them rank to rank; forced outside accumulation, whose partial C files a
# hand-off saves (cosma keeps nothing, and the other methods read and write the store directly,
# which a hand-off does not beat). move_tensor's placements of every method are tested in
# runtime.mpi.placement.
# EXPECT_HANDOFF: the program must take and keep tensors; tcec compare checks the bytes.
foreach(case "ccd_t2;outside-accumulation" "ccsd_t2;outside-accumulation")
  list(GET case 0 section)
  list(GET case 1 method)
  tcec_e2e_test(nwchem.${section}.handoff.${method} ${TCEC_DATA_DIR}/nwchem_tce_equation_trees.txt --from nwchem
                --section ${section} -D O=4 -D V=8 --force-method ${method})
  set_property(TEST e2e.nwchem.${section}.handoff.${method} APPEND PROPERTY ENVIRONMENT "NPY_PROGRAM=1;EXPECT_HANDOFF=1")
endforeach()
tcec_e2e_test(three_operands.program ${E2E}/three_operands.tce)
set_property(TEST e2e.three_operands.program APPEND PROPERTY ENVIRONMENT "NPY_PROGRAM=1")

# The random sample (tests/random): 30 programs of random statements, shapes, ranks (P <= 5) and
# memory, each generated, run under mpirun, checked against numpy, measured = predicted.
foreach(seed RANGE 1 30)
  add_test(NAME e2e.random.${seed} COMMAND bash ${E2E}/random_program.sh $<TARGET_FILE:tcec>
           $<TARGET_FILE:tcec_random_program_tool> ${CMAKE_BINARY_DIR}/e2e/random/${seed} ${seed})
  set_tests_properties(e2e.random.${seed} PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300)
endforeach()
# Additions into one stored tensor by products and a copy under each method, run as users run
# programs, without --verify: each addition updates the latest version in place
# (Run::updates_in_place); the output against numpy.
foreach(method inside-rotation inside-replication inside-accumulation outside-rotation outside-replication
        outside-accumulation sfc cosma)
  tcec_e2e_test(accumulate.${method} ${E2E}/accumulate.tce --no-handoff --force-method ${method})
  set_property(TEST e2e.accumulate.${method} APPEND PROPERTY ENVIRONMENT "NPY_PROGRAM=1;NO_VERIFY=1")
endforeach()
# The same additions on one rank (tiny1.machine), where results are filled in memory and written
# at commit (runtime/program/direct_result.h, NpyWriter::Backing::Memory): without --verify, updated in
# place (NpyUpdate); with --verify, as new versions. Against numpy, measured = predicted.
foreach(case cosma outside-accumulation sfc verified.cosma verified.outside-accumulation)
  string(REGEX REPLACE "^verified\\." "" method ${case})
  string(REPLACE "." "_" dir ${case})
  set(env "${E2E_ENV};NPY_PROGRAM=1")
  if(case STREQUAL method)
    set(env "${env};NO_VERIFY=1")
  endif()
  add_test(NAME e2e.accumulate.one_rank.${case} COMMAND bash ${E2E}/run_generated.sh $<TARGET_FILE:tcec>
           ${CMAKE_BINARY_DIR}/e2e/accumulate_one_rank_${dir} ${E2E}/accumulate.tce 1
           --machine ${E2E}/tiny1.machine --no-handoff --force-method ${method})
  set_tests_properties(e2e.accumulate.one_rank.${case} PROPERTIES ENVIRONMENT "${env}" TIMEOUT 300)
endforeach()
# The same sample under outside accumulation, whose partial C files the sequence hand-off saves:
# random programs that keep intermediates and take them rank to rank (random shapes, stored
# orders, P and memories of a few hand-off rounds), measured = predicted bytes and requests.
foreach(seed RANGE 1 20)
  add_test(NAME e2e.random.handoff.${seed} COMMAND bash ${E2E}/random_program.sh $<TARGET_FILE:tcec>
           $<TARGET_FILE:tcec_random_program_tool> ${CMAKE_BINARY_DIR}/e2e/random_handoff/${seed} ${seed}
           --force-method outside-accumulation)
  set_tests_properties(e2e.random.handoff.${seed} PROPERTIES ENVIRONMENT "${E2E_ENV}" TIMEOUT 300)
endforeach()
# Random programs with resident accumulation groups (--resident all; the seeds of 1-150 whose
# programs have a group that fits): values against numpy, measured = predicted.
foreach(seed 68 71 72 101 112)
  add_test(NAME e2e.random.resident.${seed} COMMAND bash ${E2E}/random_program.sh $<TARGET_FILE:tcec>
           $<TARGET_FILE:tcec_random_program_tool> ${CMAKE_BINARY_DIR}/e2e/random_resident/${seed} ${seed}
           --resident all)
  set_tests_properties(e2e.random.resident.${seed} PROPERTIES ENVIRONMENT "${E2E_ENV};EXPECT_RESIDENT=1" TIMEOUT 300)
endforeach()

# The chain of issue "every plan tcec emits must run" (three 2400^3 products on 8 MB per rank),
# with the hand-off (outside accumulation, whose partial C files a hand-off saves), on 4 ranks;
# and (machine files written here) on 2 and 5 ranks, and on 3 ranks and with += on 4 at N = 1200
# with 2 MB per rank (the same tensor-to-memory ratio, an eighth of the flops).
foreach(machine 2:8 5:8 3:2 4:2)
  string(REPLACE ":" ";" machine ${machine})
  list(GET machine 0 np)
  list(GET machine 1 mb)
  file(WRITE ${CMAKE_BINARY_DIR}/e2e/chain${np}_${mb}MB.machine
       "machine chain${np} { processors ${np}; memory ${mb} MB; network 1 GB/s; disk 500 MB/s; }\n")
endforeach()
set(E2E_CHAIN_SMALL -D N=1200 --machine ${CMAKE_BINARY_DIR}/e2e/chain)
foreach(case "chain;4;" "chain_add;4;${E2E_CHAIN_SMALL}4_2MB.machine"
        "chain;2;--machine;${CMAKE_BINARY_DIR}/e2e/chain2_8MB.machine"
        "chain;3;${E2E_CHAIN_SMALL}3_2MB.machine" "chain;5;--machine;${CMAKE_BINARY_DIR}/e2e/chain5_8MB.machine")
  list(GET case 0 file)
  list(GET case 1 np)
  list(SUBLIST case 2 -1 options)
  add_test(NAME e2e.${file}_np${np} COMMAND bash ${E2E}/run_generated.sh $<TARGET_FILE:tcec>
           ${CMAKE_BINARY_DIR}/e2e/${file}_np${np} ${E2E}/${file}.tce ${np} ${options} --force-method outside-accumulation)
  set_tests_properties(e2e.${file}_np${np} PROPERTIES ENVIRONMENT "${E2E_ENV};EXPECT_HANDOFF=1" TIMEOUT 600 PROCESSORS 2)
endforeach()
# Under the sanitizers too (tests/CMakeLists.txt tcec_sanitized): a Gao plan of each kind of
# communication, numpy inputs, a chain with the hand-off, tbs, sfc and cosma.
tcec_sanitized(e2e.matmul_rect.inside-rotation.ABC e2e.matmul_rect.outside-accumulation.ABC e2e.four_index.npy
               e2e.chain_np2 e2e.syrk.tbs e2e.matmul_rect.sfc e2e.accumulate.one_rank.cosma)

# The longest tests start first, also in a fresh build directory (before CTest has timed them),
# so that none is left to run alone at the end: COST, about their seconds on 2 cores.
foreach(cost e2e.resume.within_more:80 e2e.resume.within:65 e2e.ccsd.h2o.sto-3g:80 e2e.resume.refusals:50
        e2e.ccsd.h2o.sto-3g.one_rank:50 e2e.package:40 e2e.resume.steps:40 e2e.chain_np4:35 e2e.ccsd.h2o.6-31g:30
        e2e.ooc_regime.p2:15 e2e.ooc_regime.direct:15 e2e.ooc_regime.small:15 e2e.chain_add_np4:12
        e2e.chain_np5:12 e2e.hdf5:12 e2e.chain_np2:10 e2e.chain_np3:10)
  string(REPLACE ":" ";" cost ${cost})
  list(GET cost 0 test)
  list(GET cost 1 seconds)
  set_tests_properties(${test} PROPERTIES COST ${seconds})
endforeach()
