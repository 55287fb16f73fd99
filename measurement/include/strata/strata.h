/* SPDX-License-Identifier: BSD-3-Clause */
/* Strata user API: mark regions, phases (iterations), parameters, and switch recording.
 *
 *   #include <strata/strata.h>
 *
 *   void solve(int n) {
 *       STRATA_PARAMETER_INT("n", n);
 *       for (int it = 0; it < 100; ++it) {
 *           STRATA_PHASE_BEGIN("iteration");      // the analysis cuts iterations here
 *           STRATA_REGION_BEGIN("halo");
 *           ...
 *           STRATA_REGION_END("halo");
 *           STRATA_PHASE_END("iteration");
 *       }
 *   }
 *
 * The macros are active when STRATA_USER_ENABLE is defined (the `strata`
 * compiler wrapper, pkg-config's `strata` and CMake's Strata::user add it).
 * Without it they expand to nothing, so annotated code builds and runs
 * without Strata.  Each call site resolves its name once and caches the
 * handle in a function-local static; after that an event is one call.
 */
#ifndef STRATA_STRATA_H
#define STRATA_STRATA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Handle cached per call site; 0 until resolved. */
typedef uint32_t strata_handle_t;

/** Enter the user region `name` (resolved once per call site into *handle). */
void strata_user_region_begin(strata_handle_t* handle, const char* name, const char* file, int line);
/** Leave the user region `name`; it must be the innermost open region (else reported once). */
void strata_user_region_end(strata_handle_t* handle, const char* name);
/** Leave the region whose handle was filled by strata_user_region_begin (C++ scopes). */
void strata_user_region_end_handle(const strata_handle_t* begin_handle);
/** Begin / end a phase: a region flagged as an iteration or phase. */
void strata_user_phase_begin(strata_handle_t* handle, const char* name, const char* file, int line);
void strata_user_phase_end(strata_handle_t* handle, const char* name);
/** A parameter of the innermost open region. */
void strata_user_parameter_int(strata_handle_t* handle, const char* name, int64_t value);
void strata_user_parameter_string(strata_handle_t* handle, const char* name, const char* value);
/** Switch recording off and on again (at the same call depth, on the same thread). */
void strata_user_recording_off(void);
void strata_user_recording_on(void);
/** 1 while recording, 0 otherwise (also 0 without an active measurement). */
int strata_user_is_recording(void);

#ifdef __cplusplus
}
#endif

#if defined(STRATA_USER_ENABLE)

#define STRATA_REGION_BEGIN(name)                                                  \
    do {                                                                           \
        static strata_handle_t strata_handle_ = 0;                                 \
        strata_user_region_begin(&strata_handle_, (name), __FILE__, __LINE__);    \
    } while (0)
#define STRATA_REGION_END(name)                                                    \
    do {                                                                           \
        static strata_handle_t strata_handle_ = 0;                                 \
        strata_user_region_end(&strata_handle_, (name));                           \
    } while (0)
#define STRATA_PHASE_BEGIN(name)                                                   \
    do {                                                                           \
        static strata_handle_t strata_handle_ = 0;                                 \
        strata_user_phase_begin(&strata_handle_, (name), __FILE__, __LINE__);     \
    } while (0)
#define STRATA_PHASE_END(name)                                                     \
    do {                                                                           \
        static strata_handle_t strata_handle_ = 0;                                 \
        strata_user_phase_end(&strata_handle_, (name));                            \
    } while (0)
#define STRATA_PARAMETER_INT(name, value)                                          \
    do {                                                                           \
        static strata_handle_t strata_handle_ = 0;                                 \
        strata_user_parameter_int(&strata_handle_, (name), (int64_t)(value));      \
    } while (0)
#define STRATA_PARAMETER_STRING(name, value)                                       \
    do {                                                                           \
        static strata_handle_t strata_handle_ = 0;                                 \
        strata_user_parameter_string(&strata_handle_, (name), (value));            \
    } while (0)
#define STRATA_RECORDING_OFF() strata_user_recording_off()
#define STRATA_RECORDING_ON() strata_user_recording_on()

#ifdef __cplusplus
namespace strata {
/** Enters a region for the lifetime of the object (STRATA_SCOPE). */
class ScopedRegion {
public:
    ScopedRegion(strata_handle_t* handle, const char* name, const char* file, int line) : handle_(handle) {
        strata_user_region_begin(handle, name, file, line);
    }
    ~ScopedRegion() { strata_user_region_end_handle(handle_); }
    ScopedRegion(const ScopedRegion&) = delete;
    ScopedRegion& operator=(const ScopedRegion&) = delete;

private:
    const strata_handle_t* handle_;
};
}  // namespace strata
#define STRATA_CONCAT_INNER_(a, b) a##b
#define STRATA_CONCAT_(a, b) STRATA_CONCAT_INNER_(a, b)
#define STRATA_SCOPE(name)                                                         \
    static strata_handle_t STRATA_CONCAT_(strata_scope_handle_, __LINE__) = 0;     \
    ::strata::ScopedRegion STRATA_CONCAT_(strata_scope_, __LINE__)(                \
        &STRATA_CONCAT_(strata_scope_handle_, __LINE__), (name), __FILE__, __LINE__)
#endif

#else /* !STRATA_USER_ENABLE: the macros do nothing */

#define STRATA_REGION_BEGIN(name) ((void)0)
#define STRATA_REGION_END(name) ((void)0)
#define STRATA_PHASE_BEGIN(name) ((void)0)
#define STRATA_PHASE_END(name) ((void)0)
#define STRATA_PARAMETER_INT(name, value) ((void)0)
#define STRATA_PARAMETER_STRING(name, value) ((void)0)
#define STRATA_RECORDING_OFF() ((void)0)
#define STRATA_RECORDING_ON() ((void)0)
#ifdef __cplusplus
#define STRATA_SCOPE(name) ((void)0)
#endif

#endif /* STRATA_USER_ENABLE */

#endif /* STRATA_STRATA_H */
