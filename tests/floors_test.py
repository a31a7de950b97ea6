#!/usr/bin/env python3
"""The floors of src/ (docs/architecture.md): every quoted include points down or sideways.

  layers   core <- ui <- platform; tools use the core (and their own units)
  rooms    src/core/<room>/ in the order below; a room includes only itself and the rooms
           under it, always naming the room ("model/forward.hpp"), so a reader sees the floor
  cycles   none between units of src/ (a .cpp and its .hpp are one unit)

usage: floors_test.py [SRC]   exit 1 and one line per problem if a floor is broken."""
import collections
import os
import re
import sys

ROOMS = ['kernels', 'base', 'spec', 'model', 'llama', 'train', 'circuits', 'play']  # lowest first (src/core/CMakeLists.txt)
UI_ROOMS = ['look', 'maps', 'view', 'panels', 'lessons', 'frame']  # lowest first (src/ui/README.md)
LAYERS = {'core': {'core'}, 'ui': {'core', 'ui'}, 'platform': {'core', 'ui', 'platform'}, 'tools': {'core', 'tools'}}
FOREIGN = re.compile(r'^(imgui|GLFW|GL/|emscripten)')  # headers the core never includes


def sources(src):
    out = set()
    for d, _, fs in os.walk(src):
        out.update(os.path.normpath(os.path.join(d, f)) for f in fs if f.endswith(('.cpp', '.hpp', '.h')))
    return out


def where(src, path):
    """(layer, room) of a file under src; room is None outside src/core."""
    parts = os.path.relpath(path, src).split(os.sep)
    room = parts[1] if parts[0] in ('core', 'ui') and len(parts) > 2 else None
    return parts[0], room


def check(src):
    files = sources(src)
    roots = [os.path.join(src, x) for x in ('core', 'ui', 'platform')]
    problems, graph = [], collections.defaultdict(set)
    unit = lambda p: os.path.splitext(p)[0]
    for p in sorted(files):
        layer, room = where(src, p)
        name = os.path.relpath(p, src)
        text = open(p, encoding='utf-8', errors='replace').read()
        for m in re.finditer(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', text, re.M):
            quote, inc = m.groups()
            if layer == 'core' and FOREIGN.match(inc):
                problems.append(f'{name}: the core includes {inc}')
            if quote != '"':
                continue
            target = next((q for q in (os.path.normpath(os.path.join(b, inc)) for b in [os.path.dirname(p)] + roots)
                           if q in files), None)
            if target is None:
                continue  # a third-party header (imgui.h, ...)
            t_layer, t_room = where(src, target)
            if t_layer not in LAYERS.get(layer, set()):
                problems.append(f'{name}: {layer} includes {t_layer} ({inc})')
            if layer == 'core' and t_layer == 'core':
                if room not in ROOMS or t_room not in ROOMS:
                    problems.append(f'{name}: every core file lives in a room of {ROOMS} ({inc})')
                elif ROOMS.index(t_room) > ROOMS.index(room):
                    problems.append(f'{name}: room {room} includes the higher room {t_room} ({inc})')
            if layer == 'ui' and t_layer == 'ui':
                if room not in UI_ROOMS or t_room not in UI_ROOMS:
                    problems.append(f'{name}: every ui file lives in a room of {UI_ROOMS} ({inc})')
                elif UI_ROOMS.index(t_room) > UI_ROOMS.index(room):
                    problems.append(f'{name}: ui room {room} includes the higher room {t_room} ({inc})')
            if t_layer in ('core', 'ui') and not inc.startswith(f'{t_room}/'):
                problems.append(f'{name}: include {t_layer} headers by their room: "{t_room}/{os.path.basename(inc)}", not "{inc}"')
            if unit(target) != unit(p):
                graph[unit(p)].add(unit(target))
    return problems + cycles(graph, src)


def cycles(graph, src):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append('include cycle: ' + ' <-> '.join(sorted(os.path.relpath(x, src) for x in comp)))

    sys.setrecursionlimit(100000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src')
    problems = check(os.path.normpath(src))
    for p in problems:
        print(p)
    print(f'{len(problems)} problems with the floors of {os.path.normpath(src)}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
