// costmodel/methods/gao/loop_nest.h — (private) the tiled loop nest of a disk placement order
// (Gao et al. §3, Fig. 3(b)), as data: the simulator walks it and code generation prints it, so
// both describe the same program. Its declarations are public, in costmodel/schedules.h (code
// generation's face of the methods' schedules); loop_nest.cpp defines them.
#pragma once

#include "costmodel/schedules.h"
