// cooperative_groups/reduce.h - the CPU emulator's stand-in (common/emu/): cooperative_groups::reduce
// and its operators live in <cooperative_groups.h>.
#pragma once
#include "../cooperative_groups.h"
