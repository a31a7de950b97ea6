#!/usr/bin/env python3
"""The kernel sets built with wider instructions (avx2, avx512f) must export
nothing but their kernel_set.

usage: kernel_symbols_test.py OBJECT...   (the objects of attn_kernels_<set>)

kernels_simd.cpp is compiled once per instruction set. If one of those objects
defined an inline function with external linkage (say a std:: template it
instantiated out of line), the linker would keep one copy for the whole program,
perhaps the AVX-512 one, and a CPU without AVX-512 would crash in code that never
chose those kernels. So each object may define exactly one external symbol,
attn::kernels_<set> (the forward and the backward kernels of that set), and
nothing weak.
"""
import re
import subprocess
import sys

# Emitted by the compiler for exception handling; data, not code, and identical everywhere.
ALLOWED = {"DW.ref.__gxx_personality_v0"}


def main(objects):
    failures = 0
    for obj in objects:
        out = subprocess.run(["nm", "-C", "--defined-only", "--extern-only", obj], check=True, capture_output=True,
                             text=True).stdout
        symbols = [line.split(" ", 2)[2] for line in out.splitlines() if line.strip()]
        kernel_sets = [s for s in symbols if re.fullmatch(r"attn::kernels_\w+", s)]
        others = [s for s in symbols if s not in ALLOWED and s not in kernel_sets]
        if len(kernel_sets) != 1 or others:
            failures += 1
            print(f"FAIL {obj}: kernel sets {kernel_sets}, other external symbols {others[:10]}", file=sys.stderr)
        else:
            print(f"ok   {obj}: {kernel_sets[0]} only")
    if not objects:
        print("FAIL: no objects given", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
