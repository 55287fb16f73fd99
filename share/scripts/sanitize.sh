#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The standing sanitizer check: builds Strata with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-asan/ (ThreadSanitizer into
# build-tsan/ with `sanitize.sh thread`) and runs the test suite there.
#
#   share/scripts/sanitize.sh            # ASan + UBSan, the whole suite
#   share/scripts/sanitize.sh thread     # TSan, the tests of threads (TSAN_TESTS below)
#   share/scripts/sanitize.sh address -R 'analysis\.'   # further arguments go to ctest
#   share/scripts/sanitize.sh short      # ASan + UBSan, the unit tests of the measurement core and of the
#                                        # profile reader only, in build-asan-short/ (the test command runs this)
#
# Programs the tests build with the `strata` wrapper and the MPI jobs they
# start are not built with a sanitizer themselves, but load the sanitized
# Strata libraries: AddressSanitizer's runtime is preloaded into every process
# the build and the tests start (LD_PRELOAD), as its documentation asks for
# such programs.
# Leak checking is off: MPI and HDF5 keep memory until the process ends.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kind=${1:-address}
[ $# -gt 0 ] && shift
# ThreadSanitizer's runtime cannot be preloaded into any process (cmake and make crash): the
# sanitized libraries bring it in themselves, and the GCC plugin (which the compiler would
# load) is left out.
case "$kind" in
  short)
    # A few minutes: the unit tests' own targets, not the wrapper, the programs or the MPI scenarios.
    build=${BUILD_DIR:-$top/build-asan-short}
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:handle_segv=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    mkdir -p "$build"
    cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRATA_SANITIZE=address,undefined \
      -DSTRATA_WITH_GCC_PLUGIN=OFF > "$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
    cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target strata-core-tests strata-analysis-tests strata-score
    for tests in tests/strata-core-tests tests/analysis/strata-analysis-tests; do
      echo "== $tests (AddressSanitizer, UndefinedBehaviorSanitizer)"
      (cd "$build" && "./$tests" --gtest_brief=1)
    done
    exit 0 ;;
  address) sanitizers=address,undefined; build=${BUILD_DIR:-$top/build-asan}; runtime=libasan.so; options=() ;;
  thread)  sanitizers=thread; build=${BUILD_DIR:-$top/build-tsan}; runtime=; options=(-DSTRATA_WITH_GCC_PLUGIN=OFF) ;;
  *) echo "sanitize.sh: unknown kind '$kind' (accepted: address, thread, short)" >&2; exit 2 ;;
esac
"$here/install-dependencies.sh"
preload=
[ -n "$runtime" ] && preload=$(${CC:-gcc} -print-file-name="$runtime")
# handle_segv=0: the tests of crashes need the fault to reach Strata's own handler.
export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:abort_on_error=1:handle_segv=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRATA_SANITIZE="$sanitizers" "${options[@]}"
# The build runs the `strata` wrapper, whose GCC plugin (sanitized too) is loaded into the compiler.
LD_PRELOAD="$preload" cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
session="${TMPDIR:-/tmp}/ompi.$(hostname | cut -d. -f1).$(id -u)"
mkdir -p "$session" 2>/dev/null && echo "kept for the test suite" > "$session/output-strata-tests" 2>/dev/null || true
# The threaded tests, for TSan: the runtime's locations, call trees, counters, flushes and
# thread exits.  Only programs built with -fsanitize=thread can run under it (a thread that
# TSan did not see start crashes in the first instrumented function): the unit tests and the
# integration programs, not those the tests build with the strata wrapper (compiler.*,
# mpi.*, openmp.*).
TSAN_TESTS='^(EventsTest|SubsystemLocationTest|GpuEventsTest|GpuMetricsSamplerTest|CallTreeTest|CountersTest)\.|integration\.(threads|flush|threads-flush|signal-during-flush|exit-from-thread|many-threads|metrics-threads)$'
filter=()
[ "$kind" = thread ] && [ $# -eq 0 ] && filter=(-R "$TSAN_TESTS")
LD_PRELOAD="$preload" ctest --test-dir "$build" --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" \
  --timeout 1800 "${filter[@]}" "$@"
