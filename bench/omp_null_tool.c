/* An OMPT tool that registers the callbacks Strata's OpenMP adapter registers
 * and does nothing in them: what the runtime itself costs once a tool is
 * attached (bench/run_omp.sh preloads it into the plain build). */
#include <omp-tools.h>

static void nothing(void) {}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
    (void)device;
    (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (set == 0) return 0;
    static const ompt_callbacks_t which[] = {
        ompt_callback_thread_end,     ompt_callback_parallel_begin,   ompt_callback_parallel_end,
        ompt_callback_implicit_task,  ompt_callback_work,             ompt_callback_masked,
        ompt_callback_sync_region,    ompt_callback_mutex_acquire,    ompt_callback_mutex_acquired,
        ompt_callback_mutex_released, ompt_callback_task_create,      ompt_callback_task_schedule,
    };
    for (unsigned i = 0; i < sizeof which / sizeof which[0]; ++i) set(which[i], (ompt_callback_t)nothing);
    return 1;
}

static void finalize(ompt_data_t *data) { (void)data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
    (void)version;
    (void)runtime;
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}
