#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's test command: install what is missing, build, run the whole test suite.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$top/build}
"$here/install-dependencies.sh"
BUILD_DIR=$build "$here/build.sh"
# Open MPI refuses to start as root without these (the MPI tests run mpirun).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir "$build" --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" --timeout 900
