#!/usr/bin/env python3
"""Every path of the project a file names exists.

Comments, docs and scripts name files as `src/core/play/session.hpp`, a stem
(`src/ui/frame/touch`: its .cpp and .hpp; `src/ui/lessons/lesson*`) or a folder; when files move (the core into
its rooms, for one) a name left behind points nowhere and the reader, or a script
that reads it (the benchmark read a recipe from the core's old flat folder; `test.sh --quick` picks
browser tests by these names), is lost. A name counts if it exists from the
repository's root or from the naming file's folder, or is the stem of a file.
Names holding `*`, `<`, `>`, `{` or `}` are patterns and are skipped.

    python3 tests/paths_test.py          # exit 1 and one line per stale name
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = re.compile(r'(?<![\w./-])((?:src|tests|bench|docs|scripts|web|shaders)/[\w./-]*\w)')
SKIP_SUFFIXES = ('.png', '.woff2', '.ttf', '.json', '.lock', '.wasm')


def exists(name, folder):
    for base in (ROOT, os.path.join(ROOT, folder)):
        p = os.path.join(base, name)
        if os.path.exists(p) or glob.glob(glob.escape(p) + '*'):
            return True
    return False


def stale_names():
    files = subprocess.run(['git', 'ls-files'], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    problems = []
    for f in files:
        if f.endswith(SKIP_SUFFIXES) or '/corpus/' in f:
            continue
        try:
            text = open(os.path.join(ROOT, f), encoding='utf-8').read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for m in NAME.finditer(text):
            name = m.group(1).rstrip('.')
            if not any(c in name for c in '*<>{}') and not exists(name, os.path.dirname(f)):
                line = text.count('\n', 0, m.start()) + 1
                problems.append((name, f'{f}:{line}: names {name}, which is not there'))
    # What the set-up or a build makes (bench/node_modules, build/) is git-ignored, not stale.
    # A folder's pattern (node_modules/) matches the name with its slash.
    names = '\n'.join(sorted({n for n, _ in problems} | {n + '/' for n, _ in problems}))
    ignored = subprocess.run(['git', 'check-ignore', '--no-index', '--stdin'], cwd=ROOT, input=names, capture_output=True,
                             text=True).stdout.split()
    return [p for n, p in problems if n not in ignored and n + '/' not in ignored]


if __name__ == '__main__':
    problems = stale_names()
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)
