#!/usr/bin/env python3
"""No function in src/ is longer than 120 lines (the style the project keeps:
small functions a reader takes in at once). The tree is clang-formatted, so a
definition opens with a line at column 0 that has a '(' and ends with '{', and
closes at the next '}' alone at column 0. Prints the long ones; exit 1 if any."""
import pathlib
import re
import sys

LIMIT = 120
root = pathlib.Path(__file__).resolve().parent.parent / 'src'
not_a_function = re.compile(r'^(namespace|struct|class|enum|union|extern|#|static\s+const|const\s)')
long_ones = []
for path in sorted(root.rglob('*')):
    if path.suffix not in ('.cpp', '.hpp'):
        continue
    start = None
    for number, line in enumerate(path.read_text(encoding='utf-8').split('\n'), 1):
        if start is None:
            if line and not line[0].isspace() and '(' in line and line.rstrip().endswith('{') and not not_a_function.match(line):
                start = number
        elif line.rstrip() == '}':
            if number - start + 1 > LIMIT:
                long_ones.append(f'{path.relative_to(root.parent)}:{start}: {number - start + 1} lines')
            start = None
for entry in long_ones:
    print(entry)
print(f'{len(long_ones)} functions over {LIMIT} lines')
sys.exit(1 if long_ones else 0)
