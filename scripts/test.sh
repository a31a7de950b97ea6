#!/usr/bin/env bash
# Sets up and runs every test of the project:
#   1. native debug build: core unit tests (doctest), the attn CLI against the
#      article's numpy code, serve.py, clang-format, the native app under Xvfb;
#   2. the core tests and the headless UI frames again under AddressSanitizer +
#      UndefinedBehaviorSanitizer;
#   3. the web build: the same core tests compiled to wasm (SIMD) under Node;
#   4. the real page in headless Chromium (playwright-core).
# A second run with nothing changed only rebuilds what changed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
export ATTN_SERVE_QUIET=1
jobs=$(nproc 2>/dev/null || echo 2)

stage() { printf '\n=== %s ===\n' "$*"; }

stage "native build and tests"
cmake --preset native-debug >/dev/null
cmake --build --preset native-debug -j "$jobs"
ctest --preset native-debug -j "$jobs"

stage "core tests and the headless UI frames under ASan + UBSan"
cmake --preset native-asan >/dev/null
cmake --build --preset native-asan -j "$jobs" --target attn_core_tests attn_ui_app_tests
ctest --preset native-asan -R '^(core|ui_app_frames)$'

stage "web build and the core tests in wasm (Node)"
cmake --preset web >/dev/null
cmake --build --preset web -j "$jobs"
ctest --preset web

stage "the page in headless Chromium"
node --test --test-concurrency=1 tests/web/
