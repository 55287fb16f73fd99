#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages Strata needs that are missing (root or sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libopen-trace-format2-dev otf2-tools python3-otf2
  libhdf5-openmpi-dev hdf5-tools python3-h5py
  libopenmpi-dev openmpi-bin
  libpapi-dev libdw-dev
  libgtest-dev
  clang libomp-dev gfortran
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "strata: all Debian packages are installed"
  exit 0
fi

echo "strata: installing missing Debian packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "strata: run as root or install sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
