// runtime/tcert.h — the public header of libtcert, the runtime that generated programs link against.
#pragma once

#include "runtime/base/counters.h"              // Phase, Volumes, counters(), PhaseScope, sections
#include "runtime/base/error.h"                 // Error
#include "runtime/base/memory.h"                // budget(), Buffer, allocate
#include "runtime/base/progress.h"              // Progress
#include "runtime/base/random.h"                // random_element, tensor_id_of
#include "runtime/base/status.h"                // Status
#include "runtime/base/trace.h"                 // write_json_atomically
#include "runtime/blocks/block_contract.h"      // contract_blocks, BlockLayout, block_products
#include "runtime/comm/comm.h"                  // Context, shift, ring_allgatherv, allreduce_sum (+ _file)
#include "runtime/comm/placement.h"             // Placement, move_tensor
#include "runtime/kernel/kernel.h"              // permute, contract, gemm_tile
#include "runtime/methods/copy_step.h"          // copy_step, CopySpec
#include "runtime/methods/cosma/cosma.h"        // CosmaGemm
#include "runtime/methods/gao/gao.h"            // GaoGemm, GemmSpec
#include "runtime/methods/resident/resident.h"  // ResidentGemm
#include "runtime/methods/sfc/sfc.h"            // SfcGemm
#include "runtime/methods/tbs/tbs.h"            // TbsGemm
#include "runtime/program/checkpoint.h"         // Checkpoint, file_checksum
#include "runtime/program/generated.h"          // run_generated, program_main
#include "runtime/program/main_guard.h"         // run_program (tools)
#include "runtime/program/options.h"            // RunOptions, TensorLocations, parse_program_arguments, ExitRequest
#include "runtime/program/run.h"                // Run, ProgramInfo, TensorShape
#include "runtime/storage/disk.h"               // DiskFile
#include "runtime/storage/npy.h"                // read_npy_header, NpyReader, NpyWriter
#include "runtime/storage/scratch.h"            // Scratch
#include "runtime/storage/tiled_matrix.h"       // TiledMatrix (IndexTiling, GroupLayout: spec/tiling.h)
