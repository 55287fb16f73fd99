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
# Two MPI jobs starting at the same moment, when no other runs, race to create
# Open MPI's session directory (/tmp/ompi.<host>.<uid>) and one of them fails
# with "mkdir ... File exists".  Made beforehand, with a file that Open MPI's
# clean-up keeps (a non-empty output-*), it is there for every test.
session="${TMPDIR:-/tmp}/ompi.$(hostname | cut -d. -f1).$(id -u)"
mkdir -p "$session" 2>/dev/null && echo "kept for the test suite" > "$session/output-strata-tests" 2>/dev/null || true
ctest --test-dir "$build" --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" --timeout 900
# The fuzz targets (libFuzzer, clang): a short run of each from its seed corpus.
"$here/fuzz.sh" short
# The unit tests of the measurement core and of the profile reader under ASan and UBSan
# (the whole suite under them: share/scripts/sanitize.sh, about 20 minutes more).
"$here/sanitize.sh" short
