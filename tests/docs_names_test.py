#!/usr/bin/env python3
"""Every file and symbol a doc names in backticks exists in the tree.

The docs (docs/*.md, the README, each room's README.md) name code in backticks: a
file (`src/core/play/session.hpp`, `play/session.hpp` under src/core or src/ui,
`session.cpp`), a symbol (`session_apply`, `ui::app_open_link`, `window.attn.ui()`,
`experiment_limits::max_heads`) or a command. When code is renamed or moved, a name
left behind in prose points nowhere; paths_test.py catches paths, this catches the rest.

  a file-like name (has a known extension, or a '/' and no spaces) must exist from the
    root, the doc's folder, src/core/, src/ui/ or src/, or be a file's name somewhere;
  a symbol-like name (an identifier with '_' or '::' or a call's '()', dotted or not)
    must have each of its identifiers appear as a word in the project's code.
Prose, commands with spaces, numbers, options and patterns (`*`, `<…>`, `{…}`) are skipped.

    python3 tests/docs_names_test.py     # exit 1 and one line per name that is not there
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CODE_SUFFIXES = ('.cpp', '.hpp', '.h', '.py', '.mjs', '.js', '.sh', '.cmake', '.txt', '.json', '.html', '.css', '.frag',
                 '.vert', '.toml', '.yml')
FILE_SUFFIXES = CODE_SUFFIXES + ('.md', '.bin', '.png', '.svg', '.csv', '.webmanifest')
# Names of other programs a doc quotes (a kernel symbol a profile showed).
NOT_OURS = {'pvm_irq_enable'}
# `symbol` (`file`) or `symbol` in `file`: the symbol must be in that file.
BESIDE = re.compile(r'`([A-Za-z_][\w:]*)(?:\(\))?`[^`\n]{0,3}(?:\(|in |of )`([\w/.]+)`')
SPAN = re.compile(r'(?<!`)`([^`\n]+)`(?!`)')
IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')


def tracked():
    return subprocess.run(['git', 'ls-files'], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


def docs(files):
    return [f for f in files if f.endswith('.md') and (f.startswith('docs/') or f == 'README.md' or
                                                          (f.startswith('src/') and f.endswith('README.md')))]


def code_text(files):
    out = []
    for f in files:
        if f.endswith(CODE_SUFFIXES) or os.path.basename(f) in ('CMakeLists.txt', 'CMakePresets.json'):
            try:
                out.append(open(os.path.join(ROOT, f), encoding='utf-8').read())
            except (UnicodeDecodeError, FileNotFoundError):
                pass
    return '\n'.join(out)


TOP = {'src', 'tests', 'bench', 'docs', 'scripts', 'web', 'shaders', 'cmake'}


def rooms():
    return {d for base in ('src/core', 'src/ui') for d in os.listdir(os.path.join(ROOT, base))
            if os.path.isdir(os.path.join(ROOT, base, d))}


def file_exists(name, folder, basenames, code_text):
    """A project path or a room's (stems count: `play/link` is its .hpp and .cpp); a bare
    file name is any tracked file's, or one the code names (`attn-mt.js`, made by the build)."""
    first = name.strip('/').split('/')[0]
    if '/' in name.strip('/') and first not in TOP | ROOMS:
        return True  # not the project's: a model's folder, a git ref, a MIME type
    for base in ('', folder, 'src/core', 'src/ui', 'src'):
        p = os.path.join(ROOT, base, name)
        if any(os.path.exists(p + s) for s in ('', '.hpp', '.cpp', '.py', '.mjs', '.js')):
            return True
    if not name.endswith(CODE_SUFFIXES):
        return True  # a model's or a person's file (`stories15M.bin`)
    return '/' not in name.strip('/') and (name in basenames or name in code_text)


def problem(span, folder, words, basenames, code_text):
    s = span.strip()
    if not s or s in NOT_OURS or any(c in s for c in '*<>{}') or re.match(r'^[-#=&?%$0-9]', s):
        return None
    is_file = s.endswith(FILE_SUFFIXES) or ('/' in s and ' ' not in s and not s.startswith(('http', 'window.')))
    if is_file and ' ' not in s and not re.search(r'[=()?&,:]', s):
        if s.startswith(('build/', '/')) or s.endswith('node_modules'):
            return None  # what a build or a run makes
        return None if file_exists(s, folder, basenames, code_text) else f'names the file {s}, which is not there'
    m = re.fullmatch(r'((?:[A-Za-z_]\w*)(?:(?:::|\.)[A-Za-z_]\w*)*)(\([^()]*\))?', s)
    if not m:
        return None
    ids = IDENT.findall(m.group(1))
    if not (m.group(2) or '::' in s or '_' in s):
        return None  # a plain word: prose or a command, not checked
    missing = [i for i in ids if i not in words and i + '.hpp' not in basenames and i + '.cpp' not in basenames]
    return f'names {s}, and {", ".join(missing)} is in no code' if missing else None


ROOMS = rooms()


def misplaced(symbol, name, folder):
    """`symbol` (`file`): the symbol's last identifier is a word of that file (a stem: its .hpp or .cpp)."""
    last = symbol.split('::')[-1]
    for base in ('', folder, 'src/core', 'src/ui', 'src'):
        paths = [os.path.join(ROOT, base, name + s) for s in ('', '.hpp', '.cpp')]
        paths = [p for p in paths if os.path.isfile(p)]
        if paths:
            found = any(re.search(r'\b' + re.escape(last) + r'\b', open(p, encoding='utf-8').read()) for p in paths)
            return None if found else f'says {symbol} is in {name}, and it is not'
    return None


def main():
    files = tracked()
    text_all = code_text(files)
    words = set(IDENT.findall(text_all))
    basenames = {os.path.basename(f) for f in files} | {os.path.basename(os.path.dirname(f)) for f in files}
    out = []
    for f in docs(files):
        text = open(os.path.join(ROOT, f), encoding='utf-8').read()
        text = re.sub(r'```.*?```', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
        for m in SPAN.finditer(text):
            p = problem(m.group(1), os.path.dirname(f), words, basenames, text_all)
            if p:
                out.append(f'{f}:{text.count(chr(10), 0, m.start()) + 1}: {p}')
        for m in BESIDE.finditer(text):
            p = misplaced(m.group(1), m.group(2), os.path.dirname(f))
            if p:
                out.append(f'{f}:{text.count(chr(10), 0, m.start()) + 1}: {p}')
    for p in out:
        print(p)
    print(f'{len(out)} names in the docs that are not in the tree')
    return 1 if out else 0


if __name__ == '__main__':
    sys.exit(main())
