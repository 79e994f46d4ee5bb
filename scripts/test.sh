#!/usr/bin/env bash
# Set up (missing Debian packages, Release build) and run the whole test suite. Tests that need Qt
# run offscreen, so no display is needed. .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j2 --timeout 900

# Sanitizers (docs/hardening.md): one clang build with ASan + UBSan (-O1, no GUI, no benchmarks)
# builds the unit tests and the libFuzzer targets; its ctest runs the unit tests under the
# sanitizers plus a 10-second run of each fuzz target over its committed seed corpus.
# Some end-to-end runs are left to the release suite above: under ASan they take 650 s
# (cli.reproduce_all_quick, 26 s in Release), 156 s (cli.reproduce_sweep_quick, 7 s) and 220 s
# (the Fashion-MNIST convergence run, 16 s) and run code paths that the golden CLI run, the trainer
# and the collective tests already cover under the sanitizers. Likewise four seed-pool runs
# (CliSeeds.SameNumbersWhateverThreadsAndJobs, 106 s under ASan,
# CliSeeds.AFinishedResultRefusesAddedSeeds, 76 s, CliSeeds.RunPrintsTheSpeedupOverTheBaseline,
# 43 s, and CliSeeds.SeedsDifferAndSummaryCarriesIntervals, 55 s): CliSeeds.OneSeedGivesNoInterval
# drives the same seed pool end to end under the sanitizers. ValidateRun.EverySampleStillValidates (30 s)
# parses the samples that fuzz_scenario's seed corpus and the golden run already parse there.
cmake --preset asan >/dev/null
cmake --build build-asan -j2
ctest --preset asan
