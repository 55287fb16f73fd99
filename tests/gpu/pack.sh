#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Packs what tests/gpu/check.sh needs on a GPU machine that has no OTF2, PAPI
# or HDF5: Strata's measurement and CUDA adapter libraries from BUILD and the
# shared libraries they link that are not part of the C/C++ runtime.
#
#   tests/gpu/pack.sh BUILD PACK
set -eu
BUILD=$(cd "$1" && pwd)
PACK=$2
rm -rf "$PACK"
mkdir -p "$PACK/lib"
cp -L "$BUILD/measurement/libstrata-measurement.so.0" "$PACK/lib/"
cp -L "$BUILD/adapters/cuda/libstrata-cuda.so.0" "$PACK/lib/"
ln -s libstrata-cuda.so.0 "$PACK/lib/libstrata-cuda.so"
for lib in "$PACK"/lib/libstrata-*.so.0; do
    ldd "$lib" | awk '/=> \// { print $1, $3 }' | while read -r name path; do
        case "$name" in
            libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libdl.so*|libpthread.so*|librt.so*|libstrata-*) ;;
            *) [ -e "$PACK/lib/$name" ] || cp -L "$path" "$PACK/lib/$name" ;;
        esac
    done
done
du -sh "$PACK"
ls "$PACK/lib"
