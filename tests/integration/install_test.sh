#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the build into a scratch prefix, then builds an annotated program
# against it twice -- with CMake's find_package(Strata) and with pkg-config --
# and checks that both run and write an experiment with the expected regions.
#   install_test.sh BUILD_DIR WORK_DIR PROGRAM.c
set -euo pipefail
build=$1 work=$2 program=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"

# A CMake consumer.
mkdir -p "$work/cmake-consumer"
cp "$program" "$work/cmake-consumer/app.c"
cat > "$work/cmake-consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(Strata REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE Strata::user)
CMAKE
cmake -S "$work/cmake-consumer" -B "$work/cmake-consumer/build" -DCMAKE_PREFIX_PATH="$prefix" > "$work/consumer.log"
cmake --build "$work/cmake-consumer/build" >> "$work/consumer.log"

# A pkg-config consumer.
PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name strata.pc)") \
  sh -c "cc \"$program\" -o \"$work/pc-app\" \$(pkg-config --cflags --libs strata)"

check() {  # check APP NAME: runs APP and looks for its 30 'inner' visits in the profile
  local app=$1 name=$2 dir=$work/exp-$2
  env -u LD_LIBRARY_PATH STRATA_EXPERIMENT_DIRECTORY="$dir" "$app" > /dev/null
  h5dump -d /metrics/visits "$dir/profile.h5" | grep -q '30' || { echo "$name: no 30 visits in the profile" >&2; exit 1; }
  h5dump -d /definitions/regions "$dir/profile.h5" | grep -q '"inner"' || { echo "$name: region inner missing" >&2; exit 1; }
  echo "$name: ok"
}
check "$work/cmake-consumer/build/app" cmake
check "$work/pc-app" pkg-config
"$prefix/bin/strata-info" build-config > /dev/null
echo "install test passed"
