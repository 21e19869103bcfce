// frontend/machine.h — (private) checks a machine block and converts its
// quantities to bytes and bytes per second.
#pragma once

#include "TceParser.h"
#include "frontend/diagnostics.h"

namespace tcec::frontend {

/// Fills `machine` from `block`. Reports unknown properties, duplicates, bad
/// or missing units, non-positive or non-integer values, and missing required
/// properties (processors, memory, network, disk or both disk_read and
/// disk_write). Returns false if anything was reported.
bool check_machine_block(grammar::TceParser::MachineBlockContext& block, Reporter& reporter, ir::MachineDesc& machine);

}  // namespace tcec::frontend
