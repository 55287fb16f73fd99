// SPDX-License-Identifier: BSD-3-Clause
// Happens-before edges that ThreadSanitizer cannot see by itself.
//
// An OpenMP runtime hands data from one thread to another through its own
// barriers and task queues, which are not instrumented (libomp synchronises
// with atomics and futexes TSan does not model).  Where Strata relies on such
// a hand-over (a fork's data read by the team's threads, a task's data read by
// the thread that runs it), the sending side calls strata_tsan_release(p) and
// the receiving side strata_tsan_acquire(p).  Outside ThreadSanitizer builds
// both are empty.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define STRATA_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STRATA_TSAN 1
#endif
#endif

#ifdef STRATA_TSAN
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
inline void strata_tsan_acquire(const void* p) { __tsan_acquire(const_cast<void*>(p)); }
inline void strata_tsan_release(const void* p) { __tsan_release(const_cast<void*>(p)); }
#else
inline void strata_tsan_acquire(const void*) {}
inline void strata_tsan_release(const void*) {}
#endif
