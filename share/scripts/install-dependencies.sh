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

# Optional: the plugin headers of the system's GCC, for Strata's GCC plugin (without them the
# wrapper instruments with -finstrument-functions).  Only asked for when the archive has them.
optional=()
if command -v gcc >/dev/null; then
  optional+=("gcc-$(gcc -dumpversion | cut -d. -f1)-plugin-dev")
fi
# Optional: Chromium, for the test of report.html in a real browser (without it that test says skipped).
optional+=(chromium)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done
for p in "${optional[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] && continue
  if apt-cache show "$p" >/dev/null 2>&1; then
    missing+=("$p")
  else
    case "$p" in
      chromium)
        echo "strata: optional package chromium is not available: the browser test of report.html is skipped" ;;
      *) echo "strata: optional package $p is not available: Strata will build without its GCC plugin" ;;
    esac
  fi
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
