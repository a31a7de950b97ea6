"""Every wasm compile command keeps clang 14's SLP vectoriser off.

clang 14 miscompiles wasm simd128 code with it (see CMakeLists.txt), and a
later -O flag on the command line turns it back on: an -O2 or -Os meant for one
file or target once re-enabled it, and the inline seeded generator compiled
there gave the page other initial weights than the core tests. So in each
command of compile_commands.json, -fno-slp-vectorize must follow the last -O flag.

Usage: wasm_flags_test.py <build folder of the web preset>
"""
import json
import shlex
import sys
from pathlib import Path


def problems(commands):
    found = []
    for entry in commands:
        args = entry.get("arguments") or shlex.split(entry["command"])
        last_opt = max((i for i, a in enumerate(args) if a.startswith("-O")), default=-1)
        last_off = max((i for i, a in enumerate(args) if a == "-fno-slp-vectorize"), default=-1)
        if last_off < last_opt or last_off < 0:
            found.append(entry["file"])
    return found


def main():
    commands = json.loads((Path(sys.argv[1]) / "compile_commands.json").read_text())
    bad = problems(commands)
    for f in bad:
        print(f"{f}: -fno-slp-vectorize missing after the last -O flag")
    print(f"{len(commands) - len(bad)} of {len(commands)} wasm compile commands keep the SLP vectoriser off")
    return 1 if bad or not commands else 0


if __name__ == "__main__":
    sys.exit(main())
