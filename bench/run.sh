#!/usr/bin/env bash
# The side-by-side benchmark in one command (see docs/benchmarks.md):
#
#   bash bench/run.sh [--rounds N] [--no-page] [--no-numpy] [--no-torch] [--no-train] [--train-only] [--workloads PREFIX,...] [--out FILE]
#                     [--llama-only] [--no-llama] [--llama-shapes stories15M,stories110M] [--llama-rounds N]
#                     [--hf-only] [--no-hf] [--hf-shapes gpt2-small,smollm2-135m]
#
# --train-only: just the training steps (T1, T2) against PyTorch and tfjs-wasm;
# --llama-only: just the real models' rows (R1-R3, llama2.c shapes with random weights
#   written by tests/llama_files.py; stories110M's ~440 MB file only when named);
# --hf-only: just the Hugging Face folders' rows (R4-R6, GPT-2 small F32/F16 and
#   SmolLM2-135M BF16 with random weights written by tests/hf_files.py);
# --no-torch: no PyTorch (neither the reference check nor the training peer);
# --workloads PREFIX,...: only the attention workloads whose names start so (e.g. W3).
#
# Installs what it needs (scripts/setup.sh, then OpenBLAS and threadpoolctl from
# Debian, then bench/'s npm packages from the committed lockfile), builds into its
# own folders (build/bench-native, build/bench-web, build/bench-site), and runs
# bench/run.mjs pinned to one core. Prints the table and writes
# build/bench/results.json. Nothing is downloaded at run time. ATTN_BENCH_JOBS=N
# builds with N jobs (default: every core).
set -euo pipefail

root_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root_dir"
log() { printf '[bench] %s\n' "$*" >&2; }

bash scripts/setup.sh >&2

# Debian packages only the benchmark needs: OpenBLAS for the second numpy peer
# (selected per process through LD_LIBRARY_PATH, beside the reference BLAS) and
# threadpoolctl to report which BLAS numpy really loaded.
extra=(libopenblas0-pthread python3-threadpoolctl util-linux)
# PyTorch for the training reference check (bench/torch_peer.py), unless --no-torch.
[[ " $* " == *" --no-torch "* ]] || extra+=(python3-torch)
missing=()
for p in "${extra[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "bench: missing Debian packages: ${missing[*]}; run as root or: apt-get install -y ${missing[*]}" >&2
    exit 2
  fi
  log "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm peers from the committed lockfile. onnxruntime-node ships its CPU binaries in
# the package; its install step would only fetch optional GPU files: skip it.
if [ ! -d bench/node_modules/onnxruntime-node ] || [ ! -d bench/node_modules/@tensorflow/tfjs-backend-wasm ] || [ bench/package-lock.json -nt bench/node_modules/.package-lock.json ]; then
  log "npm ci in bench/"
  (cd bench && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error >&2)
fi

export NODE_PATH=/usr/share/nodejs  # Debian's acorn, for emcc's optimiser
toolchain=/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake
jobs=${ATTN_BENCH_JOBS:-$(nproc)}
log "building build/bench-native (no -march=native: sse2, avx2 and avx512f kernels, picked at run time)"
cmake -S bench -B build/bench-native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/bench-native -j"$jobs" >/dev/null
if [[ " $* " != *" --no-llama "* && " $* " != *" --train-only "* ]]; then
  # R3 measures attn eval --model itself (the root project's CLI, built here with the bench's flags).
  cmake --build build/bench-native -j"$jobs" --target attn >/dev/null
fi
log "building build/bench-web (wasm simd128)"
cmake -S bench -B build/bench-web -DCMAKE_TOOLCHAIN_FILE=$toolchain -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/bench-web -j"$jobs" >/dev/null
log "building build/bench-web-threads (wasm simd128, pthreads: the page's threaded build)"
cmake -S bench -B build/bench-web-threads -DCMAKE_TOOLCHAIN_FILE=$toolchain -DCMAKE_BUILD_TYPE=Release -DATTN_THREADS=ON >/dev/null
cmake --build build/bench-web-threads -j"$jobs" >/dev/null
args=("$@")
if [[ " $* " != *" --no-torch "* && " $* " != *" --llama-only "* && " $* " != *" --hf-only "* ]]; then
  # Training: PyTorch repeats our first 50 steps of the induction lesson recipe from the
  # same initial weights and batches (step-0 gradients within 1e-5, losses within 1e-4).
  log "training reference check against PyTorch (bench/torch_peer.py)"
  cmake --build build/bench-native -j"$jobs" --target attn_train_dump >/dev/null
  mkdir -p build/bench
  /usr/bin/python3 bench/torch_peer.py build/bench-native/attn_train_dump --out build/bench/torch_check.json >&2 ||
    log "the training reference check FAILED (see above)"
fi
if [[ " $* " != *" --no-page "* && " $* " != *" --train-only "* && " $* " != *" --llama-only "* && " $* " != *" --hf-only "* ]]; then
  # Both builds, as serve.py's site holds them: the threaded attn-mt.* first (into
  # bench-site's site folder), then the site with attn.*; served isolated, the page runs threaded.
  log "building build/bench-site (the playground, for the page cost and T3)"
  if ! { cmake -S . -B build/bench-site-threads -DCMAKE_TOOLCHAIN_FILE=$toolchain -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_TESTS=OFF \
           -DATTN_THREADS=ON -DATTN_SITE_DIR="$PWD/build/bench-site/site" >/dev/null &&
         cmake --build build/bench-site-threads -j"$jobs" --target attn_app >/dev/null &&
         cmake -S . -B build/bench-site -DCMAKE_TOOLCHAIN_FILE=$toolchain -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_TESTS=OFF >/dev/null &&
         cmake --build build/bench-site -j"$jobs" --target attn_site >/dev/null; }; then
    log "the playground did not build: no page cost this run"
    args+=(--no-page)
  fi
fi

# One core for everything (Chromium's processes inherit it): the last one.
cpu=$(($(nproc) - 1))
log "running on cpu $cpu"
exec taskset -c "$cpu" env ATTN_BENCH_PINNED="taskset -c $cpu" node bench/run.mjs "${args[@]}"
