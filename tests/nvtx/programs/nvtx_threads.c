// SPDX-License-Identifier: BSD-3-Clause
// Start/end ranges that overlap and end on another thread (run_nvtx_scenario.py "threads").
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static nvtxRangeId_t transfer;

static void* worker(void* arg) {
    (void)arg;
    nvtxRangePushA("worker");
    nvtxRangeId_t own = nvtxRangeStartA("worker range");  // "transfer" is open: a second lane
    usleep(2000);
    nvtxRangeEnd(transfer);  // started on the main thread
    usleep(1000);
    nvtxRangeEnd(own);
    nvtxRangePop();
    return NULL;
}

int main(void) {
    transfer = nvtxRangeStartA("transfer");
    // Before the worker starts: this thread records first, so it is "thread 0"
    // (threads are numbered in the order they first record).
    nvtxRangePushA("main work");
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker, NULL) != 0) return 1;
    usleep(1000);
    nvtxRangePop();
    pthread_join(thread, NULL);

    nvtxRangeId_t after = nvtxRangeStartA("after");  // both lanes free: the first
    nvtxRangeEnd(after);
    nvtxRangeId_t wide = nvtxRangeStartW(L"wide range");
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "ex range";
    nvtxRangeId_t ex = nvtxRangeStartEx(&a);
    nvtxRangeEnd(wide);
    nvtxRangeEnd(ex);
    nvtxRangeEnd(ex);  // twice: the second is an unknown id
    nvtxRangeStartA("left open");  // closed at the end of the measurement
    printf("threads done\n");
    return 0;
}
