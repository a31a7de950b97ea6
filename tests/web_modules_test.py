#!/usr/bin/env python3
"""The page shell's modules (web/*.js) stay in their floors, and the site lists them all.

  floors   web/shell.js's comment lists the modules bottom to top; each imports only
           modules listed above it (so no import cycle), and every module is listed
  headers  every script of web/ opens with a one-line comment saying what it is for
  offline  web/sw.js's SCRIPTS names every script of the page (web/*.js but sw.js itself),
           so the first visit caches them all for offline use
  page     web/index.html runs sandbox.js as a classic script, then shell.js as a module
A module the build writes into the site (BUILT) counts as one of web/'s.

usage: web_modules_test.py [WEB]   exit 1 and one line per problem."""
import os
import re
import sys

WEB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'web')
# Modules the build writes beside web/'s in the built site, and what writes them.
BUILT = {'lesson-names.js': 'src/platform/page_names.cpp'}
IMPORT = re.compile(r'^import\s[^;]*?from\s+\'\./([\w.-]+)\';', re.M)


def listed_order(web):
    """The modules web/shell.js's comment lists, bottom first: lines `//   name.js  what it is`."""
    text = open(os.path.join(web, 'shell.js'), encoding='utf-8').read()
    return re.findall(r'^//   ([\w-]+\.js)\s{2,}\S', text, re.M)


def check(web):
    problems = []
    scripts = sorted([f for f in os.listdir(web) if f.endswith('.js')] + list(BUILT))
    modules = [f for f in scripts if f not in ('sw.js', 'sandbox.js')]
    order = listed_order(web)
    for f in modules:
        if f not in order:
            problems.append(f'web/{f}: not in the list of modules in web/shell.js')
    for f in order:
        if f not in modules:
            problems.append(f'web/shell.js lists {f}, which is not in web/')
    for f in scripts:
        if f in BUILT:
            continue
        text = open(os.path.join(web, f), encoding='utf-8').read()
        lines = text.split('\n')
        if not re.match(r'// \S', lines[0]) or (len(lines) > 1 and re.match(r'// \S', lines[1])):
            problems.append(f'web/{f}: does not open with a one-line comment saying what it is for')
        for name in IMPORT.findall(text):
            if f not in order or name not in order:
                problems.append(f'web/{f} imports {name}: both must be in the list of modules')
            elif order.index(name) >= order.index(f):
                problems.append(f'web/{f} imports {name}, which is not below it in the list')
    sw = open(os.path.join(web, 'sw.js'), encoding='utf-8').read()
    m = re.search(r'const SCRIPTS = \[([^\]]*)\]', sw)
    cached = re.findall(r"'([\w.-]+)'", m.group(1)) if m else []
    for f in scripts:
        if f != 'sw.js' and f not in cached:
            problems.append(f'web/sw.js: SCRIPTS does not name {f}, so it is not kept for offline use')
    for f in cached:
        if f not in scripts:
            problems.append(f'web/sw.js: SCRIPTS names {f}, which is not in web/')
    page = open(os.path.join(web, 'index.html'), encoding='utf-8').read()
    if not re.search(r'<script src="sandbox\.js"></script>\s*<script type="module" src="shell\.js"></script>', page):
        problems.append('web/index.html: does not run sandbox.js, then the module shell.js')
    return problems


if __name__ == '__main__':
    found = check(sys.argv[1] if len(sys.argv) > 1 else WEB)
    for p in found:
        print(p)
    sys.exit(1 if found else 0)
