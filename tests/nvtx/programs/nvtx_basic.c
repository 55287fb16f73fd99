// SPDX-License-Identifier: BSD-3-Clause
// Push/pop nesting, wide and attribute messages, marks, categories, thread
// names, and calls Strata must ignore without crashing (run_nvtx_scenario.py "basic").
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

static nvtxEventAttributes_t ascii_attributes(const char* message) {
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = 1;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFF00FF00u;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return a;
}

int main(void) {
    nvtxNameOsThreadA(1234, "main thread");
    nvtxNameOsThreadW(1235, L"other thread");
    nvtxNameCategoryA(1, "compute");
    nvtxNameCategoryW(2, L"io");

    for (int i = 0; i < 3; ++i) {
        nvtxRangePushA("outer");
        nvtxRangePushA("inner");
        nvtxMarkA("tick");
        nvtxRangePop();
        nvtxRangePushW(L"wide \u00e9\u4e2d");
        nvtxMarkW(L"wide tick");
        nvtxRangePop();
        nvtxEventAttributes_t a = ascii_attributes("attributes");
        nvtxRangePushEx(&a);
        nvtxMarkEx(&a);
        nvtxRangePop();
        nvtxEventAttributes_t w = ascii_attributes(NULL);
        w.messageType = NVTX_MESSAGE_TYPE_UNICODE;
        w.message.unicode = L"wide attributes \U0001F600";
        nvtxRangePushEx(&w);
        nvtxRangePop();
        nvtxRangePop();
    }

    // Ignored, each counted once (15 in all); pushes stay balanced with their pops.
    nvtxRangePushA(NULL);
    nvtxRangePushA("kept");
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangePushEx(NULL);
    nvtxRangePop();
    nvtxEventAttributes_t bad = ascii_attributes("bad version");
    bad.version = 0;
    nvtxRangePushEx(&bad);
    nvtxRangePop();
    bad = ascii_attributes("bad size");
    bad.size = 4;
    nvtxRangePushEx(&bad);
    nvtxRangePop();
    bad = ascii_attributes("bad type");
    bad.messageType = 17;
    nvtxRangePushEx(&bad);
    nvtxRangePop();
    bad = ascii_attributes(NULL);
    nvtxRangePushEx(&bad);
    nvtxRangePop();
    bad.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    bad.message.registered = (nvtxStringHandle_t)0x123456;
    nvtxRangePushEx(&bad);
    nvtxRangePop();
    nvtxMarkA(NULL);
    nvtxMarkW(NULL);
    nvtxMarkEx(NULL);
    nvtxRangeId_t none = nvtxRangeStartA(NULL);
    nvtxRangeEnd(none);
    nvtxEventAttributes_t good = ascii_attributes("bad domain");
    nvtxDomainRangePushEx((nvtxDomainHandle_t)0x777777, &good);
    nvtxDomainRangePop((nvtxDomainHandle_t)0x777777);
    nvtxNameOsThreadA(1, NULL);
    nvtxNameCategoryA(3, NULL);
    // Counted apart: 2 pops without a push, 1 end of an unknown id.
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangeEnd(987654);

    // What push and pop return: the range's level.
    int levels[4];
    levels[0] = nvtxRangePushA("level 0");
    levels[1] = nvtxRangePushA("level 1");
    levels[2] = nvtxRangePop();
    levels[3] = nvtxRangePop();
    printf("levels %d %d %d %d\n", levels[0], levels[1], levels[2], levels[3]);
    return 0;
}
