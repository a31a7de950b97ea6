#!/usr/bin/env python3
"""Fails when a C++ file of the project differs from what clang-format makes of it.

    python3 tests/check_format.py          # check (what the tests run)
    python3 tests/check_format.py --fix    # rewrite the files in place
"""
import difflib
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRS = ("src", "tests", "bench")
EXTS = (".cpp", ".hpp", ".h", ".cc")


def sources():
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in sorted(files):
                if f.endswith(EXTS):
                    yield os.path.join(dirpath, f)


def main():
    exe = shutil.which("clang-format") or shutil.which("clang-format-14")
    if not exe:
        print("check_format: clang-format not found (bash scripts/setup.sh installs it)", file=sys.stderr)
        return 1
    fix = "--fix" in sys.argv
    bad = []
    files = list(sources())
    total = len(files)
    # One clang-format for every file first (a process a file took 25 s of a core): only the
    # files it finds unformatted are formatted again one by one, for their diffs.
    if not fix:
        check = subprocess.run([exe, "--style=file", "--dry-run", "--Werror"] + files, cwd=ROOT, capture_output=True, text=True)
        if check.returncode == 0:
            print("formatted: %d files" % len(files))
            return 0
        named = set(line.split(":", 1)[0] for line in check.stderr.splitlines() if ": error:" in line)
        files = [f for f in files if f in named] or files
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        formatted = subprocess.run([exe, "--style=file", "--assume-filename=" + path], input=text, cwd=ROOT,
                                   capture_output=True, text=True, check=True).stdout
        if formatted != text:
            bad.append(path)
            if fix:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(formatted)
            else:
                diff = difflib.unified_diff(text.splitlines(), formatted.splitlines(), path, path + " (formatted)", lineterm="", n=1)
                print("\n".join(list(diff)[:30]))
    rel = [os.path.relpath(p, ROOT) for p in bad]
    if bad and not fix:
        print("\n%d of %d files are not formatted: %s\nfix with: python3 tests/check_format.py --fix" % (len(bad), total, ", ".join(rel)))
        return 1
    print("%s %d files" % ("reformatted %d of" % len(bad) if fix else "formatted:", len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
