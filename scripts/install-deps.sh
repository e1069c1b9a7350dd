#!/usr/bin/env bash
# Installs liebatch's build and test dependencies from Debian packages.
# Idempotent: does nothing (no apt-get update, no network) when all are present.
set -euo pipefail

pkgs=(
  cmake g++ make pkg-config
  libeigen3-dev          # Eigen 3.4 (tests, host-side dense algebra)
  nlohmann-json3-dev     # JSON configs
  libgtest-dev           # GoogleTest
  libcli11-dev           # command line
  libhdf5-dev            # HDF5 output
  zlib1g-dev             # CRC-32 for the mark in liebatch's PNG plots
  libboost-dev           # Boost.Multiprecision float128 reference solutions
  libxsimd-dev xtl-dev   # SIMD packs of members on the CPU (Debian's xsimd links xtl)
  gnuplot-nox            # PNG plots
  clang-format           # the house style of changed lines (scripts/check-format.sh, CI)
  libopenmpi-dev openmpi-bin  # jobs of ranks under mpirun (LIEBATCH_MPI, docs/cluster.md)
  # The Python module (LIEBATCH_PYTHON) and its tests, for Debian's /usr/bin/python3
  pybind11-dev python3-dev python3-numpy python3-h5py python3-pytest
  python3-sympy python3-matplotlib
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
