#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The libFuzzer targets of tests/fuzz (the parsers of STRATA_* values and of
# filter files, the direct decoder of OTF2 event files, the profile.h5 reader), built with clang under
# ASan and UBSan into build-fuzz/ and run from their seed corpus.
#
#   share/scripts/fuzz.sh short          # each target 20000 inputs (the profile's 1500) from a fixed seed (the test command runs this)
#   share/scripts/fuzz.sh long [SECONDS] # each target SECONDS (default 600), new inputs kept in build-fuzz/corpus/
#
# A target that crashes, hangs or fails one of its checks stops with libFuzzer's
# report and the input that did it (crash-*, timeout-*: run the target on it to replay).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${FUZZ_BUILD_DIR:-$top/build-fuzz}
mode=${1:-short}
seconds=${2:-600}
case "$mode" in short | long) ;; *) echo "fuzz.sh: unknown mode '$mode' (accepted: short, long)" >&2; exit 2 ;; esac
if ! command -v clang++ > /dev/null; then
  echo "fuzz.sh: clang++ not found (install clang): the fuzz targets need libFuzzer" >&2
  exit 1
fi
mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRATA_FUZZ=ON \
  -DSTRATA_WITH_GCC_PLUGIN=OFF > "$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target strata-fuzz-targets
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for target in config filter event_file profile; do
  binary="$build/tests/fuzz/fuzz-${target//_/-}"
  seeds="$top/tests/fuzz/corpus/$target"
  work="$build/corpus/$target"
  mkdir -p "$work"
  echo "== fuzz-${target//_/-}"
  if [ "$mode" = short ]; then
    # The profile target writes and reads an HDF5 file per input (about 100 a second): fewer of them.
    runs=20000
    [ "$target" = profile ] && runs=1500
    (cd "$build" && "$binary" -seed=1 -runs=$runs -max_len=8192 -timeout=10 -rss_limit_mb=2048 "$work" "$seeds")
  else
    (cd "$build" && "$binary" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 "$work" "$seeds")
  fi
done
