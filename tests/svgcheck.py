#!/usr/bin/env python3
"""svgcheck.py - checks a picture of etldump -f svg as a browser drew it.

Usage: svgcheck.py SVG PNG RUNS

SVG is the picture, PNG its rendering (a screenshot at the SVG's size),
RUNS the schedule's runs, one per line: "cpu start_ns end_ns pid", longest
first. Checks that the rendering is not blank, then takes the longest run
of a process that has a legend entry of its own (by its PID) and spans at
least 5 lane columns, and checks that the pixel in the middle of the run, on
its CPU's lane, has the colour of that legend entry. Prints what it checked;
exits 0 when every check holds, 1 otherwise.

The geometry comes from the picture's own attributes: the lanes group's
data-start-ns, data-end-ns, data-x and data-width, each lane's data-cpu,
data-y and data-height, the legend swatches' classes and the colours the
style sheet gives them. The PNG is read with zlib alone (8-bit RGB or RGBA,
not interlaced).
"""
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"


def read_png(path):
    """Returns (width, height, rows) with rows[y][x] = (r, g, b)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    width = height = depth = ctype = interlace = None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG kind %s/%s/%s not handled" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pred) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def main():
    svg_path, png_path, runs_path = sys.argv[1:4]
    root = ET.parse(svg_path).getroot()
    width, height = int(root.get("width")), int(root.get("height"))
    colours = {}
    for style in root.iter(SVG + "style"):
        for cls, col in re.findall(r"\.(p\d+)\{fill:#([0-9a-f]{6})", style.text or ""):
            colours[cls] = tuple(int(col[i:i + 2], 16) for i in (0, 2, 4))
    lanes = lane_y = None
    for g in root.iter(SVG + "g"):
        if g.get("class") == "lanes":
            lanes = g
    lane_y = {}
    for g in lanes.iter(SVG + "g"):
        if g.get("class") == "lane":
            lane_y[int(g.get("data-cpu"))] = (int(g.get("data-y")), int(g.get("data-height")))
    legend = {}
    for g in root.iter(SVG + "g"):
        if g.get("class") != "entry":
            continue
        rect, text = g.find(SVG + "rect"), g.find(SVG + "text")
        m = re.search(r"\((\d+)\): ", text.text or "")
        if m:
            legend.setdefault(int(m.group(1)), []).append(rect.get("class"))
    t0, t1 = int(lanes.get("data-start-ns")), int(lanes.get("data-end-ns"))
    x0, span_px = int(lanes.get("data-x")), int(lanes.get("data-width"))

    pw, ph, rows = read_png(png_path)
    ok = True
    if pw < width or ph < height:
        print("svgcheck: the rendering is %dx%d, the picture %dx%d" % (pw, ph, width, height))
        return 1
    # Coloured pixels: neither white nor grey (the frames, text and grid).
    inked = sum(1 for y in range(height) for x in range(width)
                if max(rows[y][x]) - min(rows[y][x]) > 40)
    if inked < width * height // 100:
        print("svgcheck: the rendering is blank (%d pixels coloured)" % inked)
        ok = False
    else:
        print("svgcheck: %d of %d pixels coloured" % (inked, width * height))

    checked = False
    for line in open(runs_path):
        cpu, start, end, pid = (int(v) for v in line.split())
        if cpu not in lane_y or len(legend.get(pid, [])) != 1:
            continue
        if (end - start) * span_px < 5 * (t1 - t0):
            continue
        mid = (start + end) // 2
        x = x0 + int((mid - t0) * span_px / (t1 - t0))
        y = lane_y[cpu][0] + lane_y[cpu][1] // 2
        want = colours[legend[pid][0]]
        got = rows[y][x]
        if all(abs(a - b) <= 8 for a, b in zip(got, want)):
            print("svgcheck: CPU %d at %d ns (x %d, y %d) shows PID %d's colour %s" %
                  (cpu, mid, x, y, pid, want))
        else:
            print("svgcheck: CPU %d at %d ns (x %d, y %d): colour %s, PID %d's is %s" %
                  (cpu, mid, x, y, got, pid, want))
            ok = False
        checked = True
        break
    if not checked:
        print("svgcheck: no run of a process in the legend spans 5 columns")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
