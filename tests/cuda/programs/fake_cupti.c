/* SPDX-License-Identifier: BSD-3-Clause */
/* A libcupti that refuses the subscription, as CUPTI does when another
 * profiler holds it (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 39), and
 * an empty libcuda.so.1 (built from this file with -DFAKE_DRIVER) so that the
 * adapter gets as far as subscribing on a machine without a driver.  The
 * tests load them through STRATA_CUDA_CUPTI_LIBRARY and LD_LIBRARY_PATH. */
#include <stddef.h>
#include <stdint.h>

#ifndef FAKE_DRIVER
typedef int CUptiResult;
enum { success = 0, multiple_subscribers = 39 };

CUptiResult cuptiGetResultString(CUptiResult result, const char** text) {
    *text = result == multiple_subscribers ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
                                           : "CUPTI_SUCCESS";
    return success;
}
CUptiResult cuptiGetVersion(uint32_t* version) {
    *version = 130001;
    return success;
}
CUptiResult cuptiSubscribe(void** subscriber, void* callback, void* data) {
    (void)callback;
    (void)data;
    *subscriber = NULL;
    return multiple_subscribers;
}
/* Present so that the adapter finds every function it binds; never reached. */
CUptiResult cuptiUnsubscribe(void* s) { (void)s; return success; }
CUptiResult cuptiEnableDomain(uint32_t e, void* s, int d) { (void)e; (void)s; (void)d; return success; }
CUptiResult cuptiEnableCallback(uint32_t e, void* s, int d, uint32_t c) {
    (void)e; (void)s; (void)d; (void)c;
    return success;
}
CUptiResult cuptiActivityEnable(int kind) { (void)kind; return success; }
CUptiResult cuptiActivityRegisterCallbacks(void* a, void* b) { (void)a; (void)b; return success; }
CUptiResult cuptiActivityRegisterTimestampCallback(void* f) { (void)f; return success; }
CUptiResult cuptiActivityGetNextRecord(uint8_t* b, size_t n, void** r) {
    (void)b;
    (void)n;
    (void)r;
    return 1;
}
CUptiResult cuptiActivityGetNumDroppedRecords(void* c, uint32_t s, size_t* d) {
    (void)c; (void)s;
    *d = 0;
    return success;
}
CUptiResult cuptiActivityFlushAll(uint32_t flag) { (void)flag; return success; }
CUptiResult cuptiGetTimestamp(uint64_t* t) { *t = 0; return success; }
#else
int fake_cuda_driver_without_functions;
#endif
