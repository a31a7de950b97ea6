#!/usr/bin/env python3
"""Writes the characters the Chinese UI font keeps, for fontTools.subset --text-file.

    python3 scripts/font_cjk_chars.py OUT.txt [path/to/imgui_draw.cpp [SOURCE ...]]

GB2312 rows 1-9 (CJK and general punctuation, fullwidth ASCII, kana, Greek,
Cyrillic, pinyin with tone marks, box drawing: 682 characters) and the hanzi:
with imgui_draw.cpp given, the 2500 characters of the "常用字" list that Dear
ImGui ships (GetGlyphRangesChineseSimplifiedCommon: 97.97 % of the characters of
a month of newspaper text), which keeps the file near 540 KB and the whole site
under 1.5 MB; without it, GB2312's 3755 level-1 hanzi (~760 KB). CMake adds the
CJK punctuation and fullwidth-forms blocks by range. Python's gb2312 codec and
the ImGui sources are the tables, so nothing is downloaded. Every CJK character
in the SOURCE files (the interface's own Chinese strings) is kept as well.
"""
import re
import sys

SYMBOL_ROWS = range(0xA1, 0xAA)  # rows 1-9
LEVEL1_ROWS = range(0xB0, 0xD8)  # rows 16-55


def gb2312_chars(rows):
    out = []
    for row in rows:
        for cell in range(0xA1, 0xFF):
            try:
                out.append(bytes([row, cell]).decode("gb2312"))
            except UnicodeDecodeError:
                pass  # unassigned cell
    return out


def imgui_common_hanzi(imgui_draw_cpp):
    """The first accumulative_offsets_from_0x4E00 table: the simplified-Chinese common list."""
    with open(imgui_draw_cpp, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"GetGlyphRangesChineseSimplifiedCommon\(\).*?accumulative_offsets_from_0x4E00\[\]\s*=\s*\{(.*?)\};", text, re.S)
    if not m:
        return None
    code, out = 0x4E00, []
    for offset in re.findall(r"\d+", m.group(1)):
        code += int(offset)
        out.append(chr(code))
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    hanzi = imgui_common_hanzi(argv[2]) if len(argv) >= 3 else None
    if not hanzi:
        hanzi = gb2312_chars(LEVEL1_ROWS)
    chars = gb2312_chars(SYMBOL_ROWS) + hanzi
    seen = set(chars)
    for source in argv[3:]:
        with open(source, encoding="utf-8") as f:
            for c in f.read():
                if ord(c) >= 0x2E80 and c not in seen:
                    seen.add(c)
                    chars.append(c)
    with open(argv[1], "w", encoding="utf-8") as f:
        f.write("".join(chars) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
