// SPDX-License-Identifier: BSD-3-Clause
// Domains: strata.phase iterations, registered strings, domain categories and
// marks, the same message in two domains, a pop across domains
// (run_nvtx_scenario.py "domains" and "phase-analysis").
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#define ITERATIONS 5

static nvtxEventAttributes_t attributes(void) {
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    return a;
}

static nvtxEventAttributes_t registered(nvtxStringHandle_t s) {
    nvtxEventAttributes_t a = attributes();
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = s;
    return a;
}

static nvtxEventAttributes_t ascii(const char* message) {
    nvtxEventAttributes_t a = attributes();
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return a;
}

static void work(long microseconds) {
    struct timespec t = {0, microseconds * 1000};
    nanosleep(&t, NULL);
}

int main(void) {
    nvtxDomainHandle_t phase = nvtxDomainCreateA("strata.phase");
    nvtxDomainHandle_t io = nvtxDomainCreateW(L"io");
    nvtxDomainHandle_t io_again = nvtxDomainCreateA("io");
    nvtxStringHandle_t step = nvtxDomainRegisterStringA(phase, "step");
    nvtxStringHandle_t read = nvtxDomainRegisterStringW(io, L"read");
    nvtxDomainNameCategoryA(io, 1, "disk");
    nvtxDomainNameCategoryW(io, 2, L"net");
    printf("same domain %d\n", io == io_again);

    for (int i = 0; i < ITERATIONS; ++i) {
        nvtxEventAttributes_t a = registered(step);
        nvtxDomainRangePushEx(phase, &a);
        nvtxRangePushA("compute");
        work(10000);
        nvtxRangePop();
        a = ascii("compute");
        nvtxDomainRangePushEx(io_again, &a);
        work(2000);
        nvtxDomainRangePop(io);
        a = registered(read);
        nvtxDomainRangePushEx(io, &a);
        a = ascii("flush");
        nvtxDomainMarkEx(io, &a);
        nvtxDomainRangePop(io);
        a = ascii("checkpoint");
        nvtxDomainMarkEx(phase, &a);
        nvtxDomainRangePop(phase);
    }

    // NVTX keeps a stack per domain: this pop of "io" ends "outer io" under "crossing".
    nvtxEventAttributes_t a = ascii("outer io");
    nvtxDomainRangePushEx(io, &a);
    nvtxRangePushA("crossing");
    nvtxDomainRangePop(io);
    nvtxRangePop();
    nvtxDomainDestroy(io);
    return 0;
}
