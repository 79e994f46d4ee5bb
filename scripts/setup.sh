#!/usr/bin/env bash
# Idempotent, non-interactive set-up: install only the missing Debian packages, then configure and
# build CommLab (Release, -j2). Usage: scripts/setup.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}

packages=(
  build-essential cmake ninja-build pkg-config clang lld libclang-rt-14-dev libomp-dev clang-format
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev
  libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libzstd-dev liblz4-dev zlib1g-dev zstd lz4
  libprotobuf-dev protobuf-compiler libopenmpi-dev openmpi-bin
  dataset-fashion-mnist xvfb xauth dpkg-dev
  python3-dev pybind11-dev python3-numpy python3-torch python3-pytest python3-pip python3-mypy
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build "$build_dir" -j2
