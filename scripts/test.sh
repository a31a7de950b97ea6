#!/usr/bin/env bash
# Sets up and runs every test of the project:
#   1. native debug build: core unit tests (doctest), the attn CLI against the
#      article's numpy code, serve.py, clang-format, the native app under Xvfb;
#   2. the core tests and the headless UI frames again under AddressSanitizer +
#      UndefinedBehaviorSanitizer;
#   3. the web builds: the same core tests compiled to wasm (SIMD) under Node, and
#      the threaded build's (pthreads) thread pool and training hashes on threads;
#   4. the real page in headless Chromium (playwright-core).
# Stage 2 (build and tests) runs in the background at the lowest CPU priority
# (its session's autogroup too) from the start, on whatever core the other stages leave idle (the single-
# threaded tests, the browser waiting for frames); its output is shown at the
# end. A second run with nothing changed only rebuilds what changed.
#
#   bash scripts/test.sh           # everything (what .ci/run runs)
#   bash scripts/test.sh --quick   # the inner loop, see below; CI=true ignores it
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quick=0
[ "${1:-}" = "--quick" ] && quick=1
[ "${CI:-}" = true ] && quick=0  # CI always runs everything

bash scripts/setup.sh
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
export ATTN_SERVE_QUIET=1
jobs=$(nproc 2>/dev/null || echo 2)

t0=$SECONDS
times=()
done_ok=0
last=$t0
last_name=
stage() {
  [ -n "$last_name" ] && times+=("$(printf '%5d s  %s' $((SECONDS - last)) "$last_name")")
  last=$SECONDS
  last_name="$*"
  printf '\n=== %s ===\n' "$*"
}
summary() {
  [ -n "$last_name" ] && times+=("$(printf '%5d s  %s' $((SECONDS - last)) "$last_name")")
  last_name=
  printf '\n=== times ===\n'
  printf '%s\n' "${times[@]}"
  printf '%5d s  in all\n' $((SECONDS - t0))
}

# Stage 2 in the background (nice 19: it never takes a core the foreground wants).
asan_log=build/asan-stage.log
asan_pid=
if [ $quick = 0 ]; then
  mkdir -p build
  # its own process group (setsid), so that a failing foreground stops all of it
  setsid bash -c '
    set -e
    start=$SECONDS
    # setsid makes a session, and with the kernel'"'"'s autogroups (sched_autogroup_enabled) a session
    # shares the CPU with the others as a whole: nice alone would rank it only among its own
    # processes, and it took a core from the foreground. Its autogroup gets the nice too.
    echo 19 2>/dev/null >/proc/self/autogroup || true
    nice -n 19 cmake --preset native-asan >/dev/null
    nice -n 19 cmake --build --preset native-asan -j "$1" --target attn_core_tests attn_ui_app_tests
    # Not core_train_induction: L9 trained to its 1500th step runs the code core_train runs in
    # shorter runs (under ASan ~25 s more); its claims hold natively (three seeds, three kernel
    # sets) and in wasm.
    nice -n 19 ctest --preset native-asan -j "$1" -R "^(core|core_train|ui_app_frames)\$"
    echo "(ASan + UBSan stage: $((SECONDS - start)) s in the background)"
  ' asan "$jobs" >"$asan_log" 2>&1 &
  asan_pid=$!
fi
# On the way out: stop the background stage, and when a stage failed, still say what each took.
trap '[ -n "$asan_pid" ] && kill -- -"$asan_pid" 2>/dev/null; [ $done_ok = 1 ] || { last_name="${last_name:+$last_name (failed)}"; summary; }; true' EXIT

# The cheap native tests --quick runs: everything but the native app under Xvfb,
# serve.py's and the set-up script's own tests (they change with those files only).
quick_native='^(core|core_train|core_train_induction|core_kernel_sets_.*|ui_app_frames|ui_heatmap_data|format|function_length|function_length_js|floors|floors_.*|web_modules|paths|docs_names|cli|article_embed|kernel_symbols)$'
# The training parts of the core tests (minutes) only when the core, its tests or the build changed
# against main: a change upstairs (src/ui, src/platform, web/) cannot change what they compute.
if [ $quick = 1 ]; then
  base=$(git merge-base HEAD main 2>/dev/null || git merge-base HEAD origin/main 2>/dev/null || git rev-parse HEAD)
  if ! { git diff --name-only "$base"; git ls-files --others --exclude-standard; } | grep -qE '^(src/core/|tests/core/|tests/CMakeLists.txt|CMakeLists.txt|cmake/|src/core/CMakeLists.txt)'; then
    quick_native='^(core|ui_app_frames|ui_heatmap_data|format|function_length|function_length_js|floors|floors_.*|web_modules|paths|docs_names|cli|article_embed|kernel_symbols)$'
  fi
fi

stage "native build and tests"
cmake --preset native-debug >/dev/null
cmake --build --preset native-debug -j "$jobs"
if [ $quick = 1 ]; then
  ctest --preset native-debug -j "$jobs" -R "$quick_native"
else
  ctest --preset native-debug -j "$jobs"
fi

# --quick: the browser test files of what changed against main (committed on
# this branch, staged, unstaged or untracked):
#   - a changed tests/web/*.test.mjs runs itself;
#   - a changed shared helper (another tests/web/*.mjs) runs page and playground;
#   - a changed README.md runs links (every link in it is opened);
#   - a changed file under web/, src/ or shaders/ runs page (the smoke test), the
#     test files whose text names the file (e.g. "posters.js", "recipe.hpp"), and
#     those of its area below.
# Nothing of these changed: no browser test and no web build. The whole command
# (and CI) runs every file.
web_tests=()
if [ $quick = 1 ]; then
  base=$(git merge-base HEAD main 2>/dev/null || git merge-base HEAD origin/main 2>/dev/null || git rev-parse HEAD)
  mapfile -t changed < <({ git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u)
  declare -A pick=()
  for f in "${changed[@]}"; do
    area=()
    case "$f" in
      tests/web/*.test.mjs) [ -f "$f" ] && pick[$f]=1; continue ;;
      tests/web/*.mjs) pick[tests/web/page.test.mjs]=1; pick[tests/web/playground.test.mjs]=1; continue ;;
      README.md) pick[tests/web/links.test.mjs]=1; continue ;;  # its links are opened
      src/ui/maps/heatmap* | src/platform/heatmap_gl* | shaders/*) area=(heatmap maps) ;;
      src/ui/view/lessons* | src/ui/view/lessons* | src/core/play/lesson_preset* | src/core/play/measure_lessons*) area=(lessons claims) ;;
      src/core/play/circuit_study* | src/core/play/measure_c* | src/core/circuits/*) area=(lessons) ;;
      src/ui/panels/compare_patch* | src/core/play/compare_patch*) area=(compare) ;;
      src/ui/panels/train_panel* | src/core/train/* | src/core/spec/recipe* | src/core/play/measure_training* | src/core/play/training*) area=(train diverge) ;;
      src/ui/frame/share* | src/core/play/link* | src/core/spec/*) area=(share links) ;;
      src/ui/frame/touch*) area=(touch) ;;
      src/ui/frame/text_mirror* | src/ui/look/theme*) area=(a11y) ;;
      src/platform/fonts* | src/ui/look/i18n*) area=(fonts) ;;
      web/* | src/* | shaders/*) ;;
      *) continue ;;
    esac
    pick[tests/web/page.test.mjs]=1
    for t in "${area[@]}"; do pick[tests/web/$t.test.mjs]=1; done
    while IFS= read -r t; do pick[$t]=1; done < <(grep -l -F -- "$(basename "$f")" tests/web/*.test.mjs || true)
  done
  web_tests=("${!pick[@]}")
fi

if [ $quick = 0 ] || [ ${#web_tests[@]} -gt 0 ]; then
  stage "web builds (threaded, then single-threaded) and the core tests in wasm (Node)"
  # The threaded build first: its attn-mt.* go into the site, whose build id the web preset computes.
  cmake --preset web-threads >/dev/null
  cmake --build --preset web-threads -j "$jobs"
  cmake --preset web >/dev/null
  cmake --build --preset web -j "$jobs"
  if [ $quick = 0 ]; then
    ctest --preset web-threads -j "$jobs"
    ctest --preset web -j "$jobs"
  fi

  if [ $quick = 0 ]; then
    stage "the page in headless Chromium"
    node tests/web/run.mjs
  else
    mapfile -t web_tests < <(printf '%s\n' "${web_tests[@]}" | sort)
    stage "the page in headless Chromium: ${web_tests[*]}"
    node tests/web/run.mjs "${web_tests[@]}"
  fi
fi

if [ -n "$asan_pid" ]; then
  stage "core tests and the headless UI frames under ASan + UBSan (background, waited for)"
  status=0
  wait "$asan_pid" || status=$?
  asan_pid=
  if [ $status = 0 ]; then
    grep -E 'tests passed|Test +#|in the background' "$asan_log" || true
  else
    cat "$asan_log"
    echo "the ASan + UBSan stage failed (exit $status); its log: $asan_log"
    exit $status
  fi
fi
summary
done_ok=1
