#!/usr/bin/env python3
"""No C++ function in src/, tests/ or bench/ (DIRS) is longer than 80 lines (the style
the project keeps: small functions a reader takes in at once). Prints the long ones;
exit 1 if any. The
JavaScript of web/, tests/web/ and scripts/ has its own finder, function_length_js.py.

usage: function_length.py [--self-test] [DIR ...] [--limit N] [--list]

Functions are found by brace matching, not by layout: comments, string literals
(raw strings too), character literals and preprocessor lines are blanked first,
then every '{' is classified by the text in front of it (back to the previous ';',
'{' or '}' at the same level):
  - a function body when that text, less a constructor's initializer list, ends in
    ')' with any of const, noexcept, override, final, mutable, &, && and a trailing
    return type after it: plain, static, template, const-qualified and operator
    functions, constructors and destructors, with the signature on any number of lines;
  - a scope (namespace, class, struct, union, enum, extern "C") whose members are
    looked at in turn, so member functions defined in a class count on their own;
  - anything else (a braced initializer, at namespace level or in an initializer
    list) is neither, and is skipped.
Inside a function body nothing is classified: lambdas, local classes and blocks are
part of the function that holds them, as a reader meets them. A lambda written at
namespace level (`const auto f = [](int x) { ... };`) is a function of its own.

The length is the lines from the body's '{' to its '}', both counted (the measure
of ../shared/tools/funclen.py); the report names the line the signature starts on.
--self-test checks the finder on small samples of every kind above, and that it
still sees the definitions of every folder of DIRS (ctest runs it), so it cannot
silently go blind.
"""
import pathlib
import re
import sys

LIMIT = 80
ROOT = pathlib.Path(__file__).resolve().parent.parent
DIRS = ('src', 'tests', 'bench')  # the folders whose C++ is checked
SOURCE_SUFFIXES = ('.cpp', '.hpp', '.h', '.cc', '.inl')
QUALIFIERS = re.compile(r'\)\s*(?:(?:const|noexcept|override|final|mutable|&&|&)\s*)*'
                        r'(?:->\s*[\w:<>,\s\*&]+)?$')
SCOPE = re.compile(r'^(?:\[\[[^\]]*\]\]\s*)*(?:export\s+)?(?:inline\s+)?'
                   r'(?:namespace|class|struct|union|enum|extern)\b')
ACCESS = re.compile(r'^\s*(?:public|private|protected)\s*:(?!:)')


def blank(text):
    """text with comments, string and char literals and preprocessor lines turned into
    spaces (newlines kept, so line numbers stay)."""
    out, i, n = [], 0, len(text)

    def skip_to(j):
        nonlocal i
        out.append(''.join(ch if ch == '\n' else ' ' for ch in text[i:j]))
        i = j

    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == '#':  # a directive, with its continuation lines
            j = i
            while True:
                e = text.find('\n', j)
                e = n if e < 0 else e
                if e > i and text[e - 1] == '\\' and e < n:
                    j = e + 1
                    continue
                break
            skip_to(e)
            continue
        if c == '\n':
            at_line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith('//', i):
            e = text.find('\n', i)
            skip_to(n if e < 0 else e)
        elif text.startswith('/*', i):
            e = text.find('*/', i + 2)
            skip_to(n if e < 0 else e + 2)
        elif c == '"' and re.search(r'(?:^|[^\w])(?:u8|u|U|L)?R$', text[max(0, i - 3):i]):
            m = re.match(r'"([^()\\\s]{0,16})\(', text[i:])
            end = ')' + m.group(1) + '"' if m else '"'
            e = text.find(end, i + (m.end() if m else 1))
            skip_to(n if e < 0 else e + len(end))
        elif c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum() \
                and re.search(r'\b\d[\w\']*$', text[max(0, i - 40):i]):
            out.append(' ')  # a digit separator: 1'000'000
            i += 1
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            skip_to(min(j + 1, n))
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def strip_template_heads(header):
    """header less leading `template <...>` clauses (balanced angle brackets)."""
    while True:
        m = re.match(r'\s*template\s*<', header)
        if not m:
            return header
        depth, j = 1, m.end()
        while j < len(header) and depth:
            depth += {'<': 1, '>': -1}.get(header[j], 0)
            j += 1
        header = header[j:]


def strip_initializer_list(header):
    """A constructor's header `name(args) : a_(x), b_{y}` → `name(args)`: the last ')'
    at parenthesis depth 0 followed by a single ':' ends the signature."""
    depth, cut = 0, None
    for j, ch in enumerate(header):
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
            if depth == 0 and ch == ')':
                m = re.match(r'\s*(?:(?:const|noexcept|override|final)\s*)*:(?!:)', header[j + 1:])
                if m and (j + 1 + m.end() >= len(header) or header[j + 1 + m.end() - 2] != ':'):
                    cut = j + 1
    if cut is None:
        return header
    tail = header[cut:].strip()
    return header[:cut] if tail.endswith((')', '}')) else header


def classify(header):
    """'f' (function body), 's' (scope with members) or 'o' (anything else) for the
    text in front of a '{' at namespace or class level."""
    h = ACCESS.sub('', header)
    while ACCESS.match(h):
        h = ACCESS.sub('', h)
    h = strip_template_heads(h).strip()
    if SCOPE.match(h) and '(' not in h.split('{')[0].split('=')[0]:
        return 's'
    if SCOPE.match(h) and h.startswith(('namespace', 'extern')):
        return 's'
    if QUALIFIERS.search(strip_initializer_list(h).rstrip()):
        return 'f'
    if SCOPE.match(h):
        return 's'
    return 'o'


def lambda_before(text, i):
    """Where the lambda whose body opens at text[i] begins ('['), or None: the '{'
    follows `[captures](params)`, with qualifiers and a trailing return type allowed."""
    m = re.search(r'\)\s*(?:(?:const|constexpr|noexcept|mutable)\s*)*(?:->\s*[\w:<>,\s\*&]+)?$', text[max(0, i - 300):i])
    if not m:
        return None
    j, depth = max(0, i - 300) + m.start(), 0
    while j >= 0:
        depth += {')': 1, '(': -1}.get(text[j], 0)
        if depth == 0:
            break
        j -= 1
    k = j - 1
    while k >= 0 and text[k].isspace():
        k -= 1
    if k < 0 or text[k] != ']':
        return None
    return text.rfind('[', 0, k)


def functions(text):
    """(first line of the signature, line of '{', line of '}', header) of every function
    body in the (blanked) text, in order of their closing braces."""
    found, stack = [], []  # stack entries: (kind, position of '{', header start)
    start = 0  # where the text in front of the next '{' begins, at the current level
    for i, c in enumerate(text):
        if c == ';' and not any(k == 'f' for k, _, _ in stack):
            if not stack or stack[-1][0] == 's':
                start = i + 1
        elif c == '{':
            if any(k == 'f' for k, _, _ in stack):
                stack.append(('i', i, start))  # inside a function: part of it
            elif stack and stack[-1][0] == 'o':  # inside an initializer: a lambda is a function
                at = lambda_before(text, i)
                stack.append(('f', i, at) if at is not None else ('o', i, start))
            else:
                stack.append((classify(text[start:i]), i, start))
                if stack[-1][0] == 's':
                    start = i + 1
        elif c == '}' and stack:
            kind, p, head_start = stack.pop()
            if kind == 'f':
                header = text[head_start:p]
                lead = len(header) - len(header.lstrip())
                first = text.count('\n', 0, head_start + lead) + 1
                found.append((first, text.count('\n', 0, p) + 1, text.count('\n', 0, i) + 1,
                              ' '.join(header.split())))
            if kind in 'fs' and (not stack or stack[-1][0] == 's'):
                start = i + 1
            elif kind == 'o' and not any(k in 'fo' for k, _, _ in stack):
                start = head_start  # a braced initializer stays part of the header it is in
    return found


def sources(roots):
    """(root, path) of every C++ file under the roots, in order; none in a node_modules
    folder (bench/run.sh installs its npm packages in bench/)."""
    for root in roots:
        for path in sorted(root.rglob('*')):
            if path.suffix in SOURCE_SUFFIXES and 'node_modules' not in path.relative_to(root).parts:
                yield root, path


def long_functions(roots, limit):
    rows, count = [], 0
    for root, path in sources(roots):
        for first, open_line, close_line, header in functions(blank(path.read_text(encoding='utf-8'))):
            count += 1
            lines = close_line - open_line + 1
            if lines > limit:
                rows.append((lines, f'{path.relative_to(root.parent)}:{first}', name_of(header)))
    return sorted(rows, key=lambda r: (-r[0], r[1])), count


def name_of(header):
    """The function's name in its header: the word before its parameter list."""
    if header.startswith('['):
        return 'lambda'
    h = strip_initializer_list(header).rstrip()
    m = QUALIFIERS.search(h)
    if not m:
        return h[:60]
    j, depth = m.start(), 0
    while j >= 0:
        depth += {')': 1, '(': -1}.get(h[j], 0)
        if depth == 0:
            break
        j -= 1
    before = h[:max(j, 0)].rstrip()
    if before.endswith(']'):  # a lambda given a name: `auto f = [](...)`
        m = re.search(r'(\w+)\s*=\s*\[[^\]]*\]$', before)
        return m.group(1) if m else 'lambda'
    m = re.search(r'((?:[\w:~]*::)?operator\s*(?:\(\)|\[\]|[^\w\s(]+|[\w\s:*&<>]+)|~?[\w:]+)$', before)
    return m.group(1).strip() if m else before[-60:]


SAMPLES = [  # (source, [(name as found, lines from '{' to '}')])
    ('int f(int x) {\n    return x;\n}\n', [('f', 3)]),
    ('static std::vector<int>\nmulti_line(int a,\n           int b) {\n    return {a, b};\n}\n', [('multi_line', 3)]),
    ('template <class T, int N = 3>\nT twice(T x) {\n    return x + x;\n}\n', [('twice', 3)]),
    ('struct s {\n    int get() const {\n        return v;\n    }\n    int v = 0;\n  public:\n'
     '    s(int a) : v(a), w{a, 2} {\n        v += 1;\n    }\n    int w[2];\n};\n', [('get', 3), ('s', 3)]),
    ('namespace a {\nnamespace {\nauto g() -> int {\n    return 1;\n}\n}  // namespace\n}\n', [('g', 3)]),
    ('int h() {\n    auto l = [](int x) {\n        return x;\n    };\n    struct in { int m() { return 1; } };\n'
     '    return l(2);\n}\n', [('h', 7)]),
    ('const char* s() {\n    const char* t = "}{ \\" }";\n    char c = \'}\';\n    // }\n    /* { */\n'
     '    return R"x(})x" "{";\n}\n', [('s', 7)]),
    ('int big = 1\'000\'000;\nint t() {\n    return 1\'0;\n}\n', [('t', 3)]),
    ('const int table[] = {1, 2, 3};\nstd::array<int, 2> pair{4, 5};\nint after() { return 0; }\n', [('after', 1)]),
    ('#define BLOCK(x) { x }\n#if 1\nint p() {\n#endif\n    return 0;\n}\n', [('p', 4)]),
    ('const field fields[] = {\n    {"a", [](int x) {\n         return x;\n     }},\n    {"b", nullptr},\n};\n',
     [('lambda', 3)]),
    ('bool operator==(const a& x, const a& y) noexcept {\n    return true;\n}\n', [('operator==', 3)]),
    ('void m() {\n    if (x) {\n    }\n    for (;;) {\n    }\n}\nenum class e : int { one, two };\n', [('m', 6)]),
    ('const auto top = [](int x) {\n    return x;\n};\nextern "C" {\nint c_fn(void) { return 0; }\n}\n',
     [('top', 3), ('c_fn', 1)]),
]


def self_test():
    failures = 0
    for source, want in SAMPLES:
        got = [(name_of(h), close - open_ + 1) for _, open_, close, h in functions(blank(source))]
        if sorted(got) != sorted(want):
            failures += 1
            print(f'FAIL: found {got}, expected {want} in:\n{source}')
    # Blind to a folder? Every definition the plain layout shows (a line at column 0 with
    # '(' that ends in '{') must be the start of a function the finder sees, in the files
    # the check reads, and each folder must show about as many as it does today.
    least = {'src': 200, 'tests': 100, 'bench': 20}  # of 1294, 549 and 53
    seen, missed = dict.fromkeys(DIRS, 0), 0
    for root, path in sources([ROOT / d for d in DIRS]):
        text = path.read_text(encoding='utf-8')
        opens = {o for _, o, _, _ in functions(blank(text))}
        for number, line in enumerate(text.split('\n'), 1):
            if line and not line[0].isspace() and line.rstrip().endswith('{') and '(' in line \
                    and not re.match(r'(namespace|struct|class|enum|union|extern|#|//)', line):
                seen[root.name] += 1
                if number not in opens:
                    missed += 1
                    print(f'FAIL: {path.relative_to(ROOT)}:{number} looks like a definition, not found')
    for d in DIRS:
        if seen[d] < least.get(d, 0):
            failures += 1
            print(f'FAIL: only {seen[d]} definitions at column 0 in {d}/: is the tree there?')
    counts = ', '.join(f'{seen[d]} in {d}/' for d in DIRS)
    print(f'self-test: {len(SAMPLES)} samples, column-0 definitions checked: {counts}; {failures + missed} failures')
    return 1 if failures or missed else 0


def main(argv):
    if '--self-test' in argv:
        return self_test()
    limit = int(argv[argv.index('--limit') + 1]) if '--limit' in argv else LIMIT
    dirs = [a for i, a in enumerate(argv) if not a.startswith('--') and (i == 0 or argv[i - 1] != '--limit')]
    roots = [pathlib.Path(d).resolve() for d in dirs] or [ROOT / d for d in DIRS]
    rows, count = long_functions(roots, limit)
    for lines, where, name in rows:
        print(f'{where}: {name}: {lines} lines')
    print(f'{len(rows)} of {count} functions over {limit} lines')
    return 1 if rows else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
