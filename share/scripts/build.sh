#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configures and builds Strata into BUILD_DIR (default: build/ at the top of the checkout).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$top/build}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}
cmake --build "$build" -j"$jobs"
