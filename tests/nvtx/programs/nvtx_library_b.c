// SPDX-License-Identifier: BSD-3-Clause
// A second shared library with its own copy of NVTX (run_nvtx_scenario.py "libraries").
#include <nvtx3/nvToolsExt.h>

void library_b_work(void) {
    nvtxRangePushA("library b");
    nvtxMarkA("library b mark");
    nvtxRangePop();
}
