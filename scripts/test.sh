#!/usr/bin/env bash
# Set up (missing Debian packages, Release build) and run the whole test suite. Tests that need Qt
# run offscreen, so no display is needed. .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j2 --timeout 900
