// runtime/tcert.h — the public header of libtcert, the runtime that generated programs link against.
#pragma once

#include "runtime/checkpoint.h"    // Checkpoint, file_checksum
#include "runtime/comm.h"          // Context, shift, ring_allgatherv, allreduce_sum (+ _file)
#include "runtime/copy_step.h"     // copy_step, CopySpec
#include "runtime/cosma.h"         // CosmaGemm
#include "runtime/counters.h"      // Phase, Volumes, counters(), PhaseScope, sections
#include "runtime/disk.h"          // DiskFile
#include "runtime/error.h"         // Error
#include "runtime/gemm.h"          // DistributedGemm, GemmSpec
#include "runtime/generated.h"     // run_generated, program_main
#include "runtime/kernel.h"        // permute, contract, gemm_tile
#include "runtime/main_guard.h"    // run_program (tools)
#include "runtime/memory.h"        // budget(), Buffer, allocate
#include "runtime/npy.h"           // read_npy_header, NpyReader, NpyWriter
#include "runtime/options.h"       // RunOptions, TensorLocations, parse_program_arguments, ExitRequest
#include "runtime/placement.h"     // Placement, move_tensor
#include "runtime/progress.h"      // Progress
#include "runtime/random.h"        // random_element, tensor_id_of
#include "runtime/resident.h"      // ResidentGemm
#include "runtime/run.h"           // Run, ProgramInfo, TensorShape
#include "runtime/scratch.h"       // Scratch
#include "runtime/sfc.h"           // SfcGemm
#include "runtime/status.h"        // Status
#include "runtime/tbs.h"           // TbsGemm
#include "runtime/tiled_matrix.h"  // IndexTiling, GroupLayout, TiledMatrix
#include "runtime/trace.h"         // write_json_atomically
