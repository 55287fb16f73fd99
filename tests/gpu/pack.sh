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
cp -L "$BUILD/adapters/cuda/libstrata-cuda.so.0" "$BUILD/adapters/cuda/libstrata-nvtx.so" "$PACK/lib/"
cp -L "$BUILD/adapters/user/libstrata-user.so.0" "$PACK/lib/"
# The user-region benchmark: what an NVTX range is compared with, on the same machine.
mkdir -p "$PACK/bin"
cp "$BUILD/instrumenter/strata-preload" "$PACK/bin/"
cp "$BUILD/bench/bench-user-regions-strata" "$PACK/bin/"
# The MPI + CUDA example, built here by strata nvcc -ccbin mpicxx (the GPU machine may have no
# MPI compiler); it runs there on that machine's libmpi.so.40 (Open MPI).
for lib in mpi compiler; do cp -L "$BUILD/adapters/$lib/libstrata-$lib.so.0" "$PACK/lib/"; done
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$BUILD/instrumenter/strata" "$nvcc" -O2 -g -ccbin mpicxx -gencode arch=compute_90,code=sm_90 \
    "$(dirname "$0")/../../share/examples/gpu_streams.cu" -o "$PACK/bin/gpu_streams"
# strata-preload, laid out as installed (bin/, lib/), as a user runs Python programs.
for lib in cuda measurement user; do ln -sf "libstrata-$lib.so.0" "$PACK/lib/libstrata-$lib.so"; done
for lib in "$PACK"/lib/libstrata-*.so.0; do
    ldd "$lib" | awk '/=> \// { print $1, $3 }' | while read -r name path; do
        case "$name" in
            libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libdl.so*|libpthread.so*|librt.so*|libstrata-*) ;;
            libmpi.so*|libopen-rte.so*|libopen-pal.so*|libhwloc.so*|libevent*|libpmix*) ;;  # its own MPI
            libz.so*|libbz2.so*|liblzma.so*|libudev.so*) ;;  # every system has them, maybe newer
            *) [ -e "$PACK/lib/$name" ] || cp -L "$path" "$PACK/lib/$name" ;;
        esac
    done
done
du -sh "$PACK"
ls "$PACK/lib"
