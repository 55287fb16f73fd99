// SPDX-License-Identifier: BSD-3-Clause
// A program and two shared libraries, three copies of NVTX: each initialises
// the injection once (run_nvtx_scenario.py "libraries").
#include <nvtx3/nvToolsExt.h>

void library_a_work(void);
void library_b_work(void);

int main(void) {
    nvtxRangePushA("program");
    for (int i = 0; i < 2; ++i) {
        library_a_work();
        library_b_work();
    }
    nvtxRangePop();
    return 0;
}
