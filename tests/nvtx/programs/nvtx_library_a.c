// SPDX-License-Identifier: BSD-3-Clause
// A shared library with its own copy of NVTX (run_nvtx_scenario.py "libraries").
#include <nvtx3/nvToolsExt.h>

void library_a_work(void) {
    nvtxRangePushA("library a");
    nvtxRangePop();
}
