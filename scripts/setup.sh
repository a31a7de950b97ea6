#!/usr/bin/env bash
# Installs everything the build and the tests need, from Debian's packages and the
# npm registry only, and fills deps/ (git-ignored) with the third-party sources and
# header folders the build looks for. Idempotent: a second run with everything in
# place only checks and returns in seconds.
#
#   bash scripts/setup.sh            # everything (build, serve, tests)
#   bash scripts/setup.sh --web      # only what `python3 serve.py` needs
#
# As a non-root user without sudo it prints what is missing and the command that
# installs it, then stops with exit code 2.
set -euo pipefail

root_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps="$root_dir/deps"
want_tests=1
[ "${1:-}" = "--web" ] && want_tests=0

log() { printf '[setup] %s\n' "$*"; }

# Debian packages. The web build needs emscripten (+ cmake); the native build and
# the tests need the rest.
pkgs_web=(cmake make g++ emscripten python3 python3-fonttools fonts-dejavu-core fonts-wqy-microhei libeigen3-dev
          nlohmann-json3-dev  # the JSON of Hugging Face folders (safetensors headers, config.json, tokenizer.json)
          unicode-data)       # the Unicode classes and NFC tables of tokenizer.json's encoding, generated at build time
pkgs_test=(libglfw3-dev doctest-dev xvfb xauth chromium python3-numpy python3-torch
           clang-format imagemagick clang-14)  # clang-14: the native debug and ASan + UBSan builds (and emscripten's)
# From trixie, pinned low so that nothing else is upgraded: xsimd >= 11 has the wasm arch.
pkgs_trixie=(libxsimd-dev)
imgui_version=1.90.1

pkgs=("${pkgs_web[@]}")
[ $want_tests = 1 ] && pkgs+=("${pkgs_test[@]}")
# Extra packages to require (the set-up test uses it to see the non-root report).
# shellcheck disable=SC2206
[ -n "${ATTN_SETUP_EXTRA_PKGS:-}" ] && pkgs+=($ATTN_SETUP_EXTRA_PKGS)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
xsimd_ok=0
if dpkg-query -W -f='${Version}' libxsimd-dev 2>/dev/null | grep -qE '^(1[1-9]|[2-9][0-9])\.'; then xsimd_ok=1; fi
imgui_ok=0
[ -f "$deps/imgui/imgui.cpp" ] && [ -f "$deps/imgui/backends/imgui_impl_glfw.cpp" ] && imgui_ok=1

trixie_list=/etc/apt/sources.list.d/attn-playground-trixie.sources
trixie_pin=/etc/apt/preferences.d/attn-playground-trixie

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"; else return 99; fi
}

need_root=0
{ [ ${#missing[@]} -gt 0 ] || [ $xsimd_ok = 0 ] || { [ $imgui_ok = 0 ] && [ ! -f "$trixie_list" ]; }; } && need_root=1
if [ $need_root = 1 ] && [ "$(id -u)" != 0 ] && ! { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }; then
  echo "setup: missing system packages and no root rights to install them." >&2
  [ ${#missing[@]} -gt 0 ] && echo "  missing Debian packages: ${missing[*]}" >&2
  [ $xsimd_ok = 0 ] && echo "  missing: libxsimd-dev >= 11 (from trixie, pinned at priority 100)" >&2
  echo "Run as root (or with sudo):  sudo bash scripts/setup.sh" >&2
  echo "or install them by hand:" >&2
  [ ${#missing[@]} -gt 0 ] && echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
  [ $xsimd_ok = 0 ] && echo "  (xsimd: add a 'trixie' deb/deb-src source pinned at priority 100, then apt-get install -t trixie libxsimd-dev)" >&2
  exit 2
fi

export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update() { [ $updated = 1 ] || { log "apt-get update"; as_root apt-get update -qq; updated=1; }; }

if [ ! -f "$trixie_list" ] && { [ $xsimd_ok = 0 ] || [ $imgui_ok = 0 ]; }; then
  log "adding Debian trixie (deb + deb-src) at pin priority 100"
  as_root tee "$trixie_list" >/dev/null <<'SRC'
Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  as_root tee "$trixie_pin" >/dev/null <<'PIN'
Package: *
Pin: release n=trixie
Pin-Priority: 100
PIN
  updated=0
fi

if [ ${#missing[@]} -gt 0 ]; then
  apt_update
  log "installing: ${missing[*]}"
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ $xsimd_ok = 0 ]; then
  apt_update
  log "installing libxsimd-dev from trixie"
  as_root apt-get install -y -qq --no-install-recommends -t trixie "${pkgs_trixie[@]}" >/dev/null
fi

# Header-only dependencies get include folders of their own: the Emscripten sysroot
# must never see /usr/include (it would pull in glibc's headers).
mkdir -p "$deps/include"
for d in xsimd xtl doctest nlohmann; do
  [ -e "/usr/include/$d" ] && ln -sfn "/usr/include/$d" "$deps/include/$d"
done
# Eigen (the circuits room's eigenvalues) keeps its headers one folder deeper.
[ -e /usr/include/eigen3/Eigen ] && ln -sfn /usr/include/eigen3/Eigen "$deps/include/Eigen"

if [ $imgui_ok = 0 ]; then
  apt_update
  log "fetching Dear ImGui $imgui_version sources (Debian source package)"
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get source --download-only -qq "imgui/trixie" >/dev/null)
  tarball=$(ls "$tmp"/imgui_"$imgui_version"*.orig.tar.* | head -1)
  rm -rf "$deps/imgui" && mkdir -p "$deps/imgui"
  tar -xf "$tarball" -C "$deps/imgui" --strip-components=1
  rm -rf "$tmp"
fi

# Fonts served by the page and loaded by the native app (subset at build time by CMake).
mkdir -p "$deps/fonts"
ln -sfn /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf "$deps/fonts/latin.ttf" 2>/dev/null || true
[ -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] && ln -sfn /usr/share/fonts/truetype/wqy/wqy-microhei.ttc "$deps/fonts/cjk.ttc"

if [ $want_tests = 1 ]; then
  if [ ! -d "$root_dir/node_modules/playwright-core" ] || [ "$root_dir/package-lock.json" -nt "$root_dir/node_modules/.package-lock.json" ]; then
    log "npm ci (dev dependencies from the committed lockfile)"
    (cd "$root_dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
log "ok"
