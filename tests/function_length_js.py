#!/usr/bin/env python3
"""No JavaScript function in web/, tests/web/ and scripts/ is longer than 80 lines:
the limit tests/function_length.py keeps for the C++ of src/. Prints the long ones;
exit 1 if any.

usage: function_length_js.py [--self-test] [DIR ...] [--limit N]

Functions are found by brace matching, not by layout. Comments, string literals,
template literals (less their ${...} parts, which are code) and regular expression
literals are blanked first (a '/' starts a regular expression where a value cannot
end: after an operator, '(', ',', '{', '}', ';', a keyword such as return, or at the
start), then every '{' is classified by the text in front of it:
  - after '=>': an arrow function's block body;
  - after ')': a function when the word before the matching '(' is not one of
    if, for, for await, while, switch, catch, with: a function declaration or expression
    (`function f(`, `function (`, `function* g(`, `async function h(`) or a method
    of an object or class (`name(`, `get name(`, `async name(`, `static name(`,
    `*name(`, `[computed](`);
  - anything else (a block, an object literal, a class body) is no function.
A function's length is the lines from its '{' to its '}', both counted (as the C++
check counts), nested functions included: a function holding a long callback is as
long as a reader finds it. Each nested function is measured on its own too. Arrow
functions with an expression body (`(x) => x + 1`, `() => ({...})`) are part of the
function they are written in.

--self-test checks the finder on small samples of every kind above, and that it sees
every function the plain layout shows in the checked folders (a line ending in
`=> {` or holding `function` and ending in '{'), so it cannot silently go blind.
"""
import pathlib
import re
import sys

LIMIT = 80
ROOT = pathlib.Path(__file__).resolve().parent.parent
DIRS = ('web', 'tests/web', 'scripts')
SUFFIXES = ('.js', '.mjs')
BLOCK_WORDS = {'if', 'for', 'while', 'switch', 'catch', 'with'}
# After these words a '/' starts a regular expression, not a division.
REGEX_AFTER_WORDS = {'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do',
                     'else', 'yield', 'await'}


def blank(text):
    """text with comments, strings, template text and regular expressions turned into
    spaces (newlines kept, so positions and line numbers stay)."""
    out = list(text)
    n = len(text)
    templates = []  # for each open ${...} of a template literal: the depth of '{' inside it

    def clear(a, b):
        for k in range(a, min(b, n)):
            if out[k] != '\n':
                out[k] = ' '

    def template_text(i):
        """Blanks template text from i (just past '`' or a ${...}'s '}'); returns where
        the code goes on: past the closing '`', or past a '${' (pushed)."""
        j = i
        while j < n:
            if text[j] == '\\':
                j += 2
            elif text[j] == '`':
                clear(i, j + 1)
                return j + 1, False
            elif text.startswith('${', j):
                clear(i, j + 2)
                templates.append(0)
                return j + 2, True
            else:
                j += 1
        clear(i, n)
        return n, False

    i = 0
    last = ''  # the last code character that is not a space, or 'w' for a word, 'v' for a literal
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            e = text.find('\n', i)
            e = n if e < 0 else e
            clear(i, e)
            i = e
        elif text.startswith('/*', i):
            e = text.find('*/', i + 2)
            e = n if e < 0 else e + 2
            clear(i, e)
            i = e
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            clear(i, j + 1)
            i, last = j + 1, 'v'
        elif c == '`':
            clear(i, i + 1)
            i, opened = template_text(i + 1)
            last = '(' if opened else 'v'
        elif c == '/' and regex_may_start(last, text, i):
            j, in_class = i + 1, False
            while j < n and text[j] != '\n':
                if text[j] == '\\':
                    j += 1
                elif text[j] == '[':
                    in_class = True
                elif text[j] == ']':
                    in_class = False
                elif text[j] == '/' and not in_class:
                    break
                j += 1
            clear(i, j + 1)
            i, last = j + 1, 'v'
        elif c == '}' and templates and templates[-1] == 0:
            templates.pop()
            clear(i, i + 1)
            i, opened = template_text(i + 1)
            last = '(' if opened else 'v'
        else:
            if templates and c in '{}':
                templates[-1] += 1 if c == '{' else -1
            if c.isalnum() or c in '_$':
                m = re.match(r'[\w$]+', text[i:])
                i += m.end()
                last = 'w'
                continue
            if not c.isspace():
                last = c
            i += 1
    return ''.join(out)


def regex_may_start(last, text, i):
    """Whether a '/' at text[i] starts a regular expression: no value ends before it."""
    if last == 'w':
        m = re.search(r'([\w$]+)\s*$', text[:i])
        return bool(m) and m.group(1) in REGEX_AFTER_WORDS
    return last not in ('v', ')', ']')


def matching_open(text, close):
    """The index of the '(' matching the ')' at text[close], or -1."""
    depth = 0
    for j in range(close, -1, -1):
        if text[j] == ')':
            depth += 1
        elif text[j] == '(':
            depth -= 1
            if depth == 0:
                return j
    return -1


def function_head(code, i):
    """(kind, where the head starts) of the '{' at code[i] when it opens a function's
    body ('arrow' or 'function'), else None."""
    j = i - 1
    while j >= 0 and code[j].isspace():
        j -= 1
    if j >= 1 and code[j - 1:j + 1] == '=>':
        k = j - 2
        while k >= 0 and code[k].isspace():
            k -= 1
        if k >= 0 and code[k] == ')':
            return 'arrow', matching_open(code, k)
        m = re.search(r'[\w$]+$', code[:k + 1])  # x => {
        return 'arrow', m.start() if m else k
    if j < 0 or code[j] != ')':
        return None
    p = matching_open(code, j)
    if p < 0:
        return None
    before = code[:p].rstrip()
    m = re.search(r'([\w$]+)$', before)
    if m and (m.group(1) in BLOCK_WORDS or re.search(r'\bfor\s+await$', before)):
        return None
    if m or before.endswith(('function', '*', ']')):
        return 'function', m.start() if m else len(before) - 1
    return None


def functions(text):
    """(line of the head, line of '{', line of '}', name) of every function in text
    (JavaScript), in order of their closing braces."""
    code = blank(text)
    found, stack = [], []
    for i, c in enumerate(code):
        if c == '{':
            head = function_head(code, i)
            stack.append((i, head))
        elif c == '}' and stack:
            p, head = stack.pop()
            if head is not None:
                kind, start = head
                found.append((code.count('\n', 0, start) + 1, code.count('\n', 0, p) + 1, code.count('\n', 0, i) + 1,
                              name_of(text, code, kind, start)))
    return found


def name_of(text, code, kind, start):
    """A readable name: the function's or method's own, the variable or key it is
    given to, or the call it is an argument of (with a test's title)."""
    m = re.match(r'[\w$]+', code[start:])
    word = m.group(0) if m else ''
    if kind == 'function' and word not in ('', 'function'):
        return word
    before = code[:start + len(word)] if kind == 'function' else code[:start]
    before = re.sub(r'(?:\bfunction\s*)?\*?$', '', before.rstrip()).rstrip()
    before = re.sub(r'\basync$', '', before).rstrip()
    m = re.search(r'([\w$.]+)\s*[=:]$', before)
    if m:
        return m.group(1)
    # An argument: the call's name, from the '(' that holds it.
    depth = 0
    for j in range(len(before) - 1, -1, -1):
        depth += {')': 1, ']': 1, '(': -1, '[': -1}.get(before[j], 0)
        if depth < 0:
            m = re.search(r'([\w$.]+)\s*$', before[:j]) if before[j] == '(' else None
            callee = m.group(1) if m and m.group(1) not in BLOCK_WORDS | REGEX_AFTER_WORDS else ''
            title = re.match(r"\s*(['\"`])((?:\\.|(?!\1).)*)\1", text[j + 1:])
            if callee and title and callee.split('.')[-1] in ('test', 'it', 'describe'):
                words = title.group(2)
                return f"{callee} '{words if len(words) <= 50 else words[:47] + '...'}'"
            return f'{callee} callback' if callee else kind
    return kind


def source_files(dirs):
    for d in dirs:
        for path in sorted(pathlib.Path(d).glob('*')):
            if path.suffix in SUFFIXES and path.is_file():
                yield path


def long_functions(dirs, limit):
    rows, count = [], 0
    for path in source_files(dirs):
        for first, open_line, close_line, name in functions(path.read_text(encoding='utf-8')):
            count += 1
            lines = close_line - open_line + 1
            if lines > limit:
                rows.append((lines, f'{display(path)}:{first}', name))
    return sorted(rows, key=lambda r: (-r[0], r[1])), count


def display(path):
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


SAMPLES = [  # (source, [(name as found, lines from '{' to '}')])
    ('function f(x) {\n  return x;\n}\n', [('f', 3)]),
    ('async function g(\n  a,\n  b) {\n  await a;\n  return b;\n}\n', [('g', 4)]),
    ('const h = function (x) {\n  return x;\n};\nconst k = function* () {\n  yield 1;\n};\n', [('h', 3), ('k', 3)]),
    ('const a = (x) => {\n  return x;\n};\nconst b = async x => {\n  return x;\n};\nconst c = (x) => ({ x });\n',
     [('a', 3), ('b', 3)]),
    ('const o = {\n  m(x) {\n    return x;\n  },\n  get v() {\n    return 1;\n  },\n  async n() {\n    return 2;\n  },\n'
     '  *gen() {\n    yield 3;\n  },\n  key: { inner: 1 },\n};\n', [('m', 3), ('v', 3), ('n', 3), ('gen', 3)]),
    ('class C extends B {\n  static make() {\n    return new C();\n  }\n  [Symbol.iterator]() {\n    return [];\n  }\n}\n',
     [('make', 3), ('function', 3)]),
    ('function blocks() {\n  if (a) {\n  } else {\n  }\n  for (;;) {\n  }\n  while (b) {\n  }\n  switch (c) {\n  }\n'
     '  try {\n  } catch (e) {\n  } finally {\n  }\n  for await (const x of y) {\n  }\n}\n', [('blocks', 17)]),
    ('function s() {\n  const t = "}{ \\" }";\n  const u = \'{\';\n  // }\n  /* { */\n  return `a { ${ {b: 1}.b } }`;\n}\n',
     [('s', 7)]),
    ('function r(x) {\n  const re = /[}{/]\\/{/g;\n  return x / 2 / re.lastIndex;\n}\nconst q = () => {\n  return /}/.test("");\n};\n',
     [('r', 4), ('q', 3)]),
    ('function outer() {\n  list.forEach((x) => {\n    use(x);\n  });\n  return `${(() => {\n    return 1;\n  })()}`;\n}\n',
     [('outer', 8), ('list.forEach callback', 3), ('arrow', 3)]),
    ("test('does a thing', async () => {\n  await step();\n});\n", [("test 'does a thing'", 3)]),
    ('const p = new Promise((resolve) => {\n  resolve(1);\n});\nfunction ret() {\n  return /a{2}/;\n}\n',
     [('Promise callback', 3), ('ret', 3)]),
]


def self_test():
    failures = 0
    for source, want in SAMPLES:
        got = [(name, close - open_ + 1) for _, open_, close, name in functions(source)]
        if sorted(got) != sorted(want):
            failures += 1
            print(f'FAIL: found {got}, expected {want} in:\n{source}')
    # Blind to the checked folders? Every function the plain layout shows (a line that
    # holds `function` or `=>` and ends in '{') must be one the finder sees.
    seen = missed = 0
    for path in source_files([ROOT / d for d in DIRS]):
        text = path.read_text(encoding='utf-8')
        opens = {o for _, o, _, _ in functions(text)}
        for number, line in enumerate(text.split('\n'), 1):
            code = line.split('//')[0].rstrip() if '//' in line and "'" not in line and '"' not in line else line.rstrip()
            if code.endswith('{') and (code.endswith('=> {') or re.search(r'\bfunction\b', code)) \
                    and not code.lstrip().startswith(('//', '*', '/*')):
                seen += 1
                if number not in opens:
                    missed += 1
                    print(f'FAIL: {display(path)}:{number} looks like a function, not found')
    if seen < 200:
        failures += 1
        print(f'FAIL: only {seen} functions in {", ".join(DIRS)}: are the folders there?')
    print(f'self-test: {len(SAMPLES)} samples, {seen} functions of the plain layout checked, {failures + missed} failures')
    return 1 if failures or missed else 0


def main(argv):
    if '--self-test' in argv:
        return self_test()
    limit = int(argv[argv.index('--limit') + 1]) if '--limit' in argv else LIMIT
    dirs = [a for i, a in enumerate(argv) if not a.startswith('--') and (i == 0 or argv[i - 1] != '--limit')]
    rows, count = long_functions([pathlib.Path(d) for d in dirs] if dirs else [ROOT / d for d in DIRS], limit)
    for lines, where, name in rows:
        print(f'{where}: {name}: {lines} lines')
    print(f'{len(rows)} of {count} functions over {limit} lines')
    return 1 if rows else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
