#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check kmemflight's pictures as a renderer draws them (librsvg's
rsvg-convert), and print what they say for the CLI tests to compare.

  svgcheck.py render FILE.svg      valid XML; rendered to PNG at its size,
                                   not blank; nothing drawn outside it
  svgcheck.py values FILE.svg      one line per kind, phase (named in the
                                   row above, with a leader: "(above)"),
                                   caller and legend row; every area's
                                   and line's last point where its value
                                   puts it
  svgcheck.py column FILE.svg NS   the tooltip of the column at NS ns
  svgcheck.py steps FILE.svg       every area and line goes across or up
                                   and down, never on a slant

Standard library only: the PNG is decoded here (zlib and the five
filters), not by an imaging module.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"
MARGIN = 200


def fail(msg):
    print("svgcheck: " + msg, file=sys.stderr)
    sys.exit(1)


def read_png(path):
    """(width, height, rows of RGBA bytes) of an 8-bit RGBA or RGB PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + ": not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                fail(path + ": a PNG this checker does not decode")
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if w is None:
        fail(path + ": no IHDR")
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, p = [], bytearray(stride), 0
    for _ in range(h):
        ft, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        if bpp == 3:
            rgba = bytearray()
            for i in range(0, stride, 3):
                rgba += line[i:i + 3] + b"\xff"
            rows.append(rgba)
        else:
            rows.append(line)
        prev = line
    return w, h, rows


def rsvg(svg, png):
    r = subprocess.run(["rsvg-convert", "-f", "png", "-o", png, svg],
                       capture_output=True, text=True)
    if r.returncode:
        fail("rsvg-convert %s: %s" % (svg, r.stderr.strip()))


def size(root):
    return float(root.get("width")), float(root.get("height"))


def render(path):
    try:
        tree = ET.parse(path)
    except ET.ParseError as e:
        fail("%s: not valid XML: %s" % (path, e))
    root = tree.getroot()
    if root.tag != NS + "svg":
        fail(path + ": not an SVG document")
    w, h = size(root)
    with tempfile.TemporaryDirectory() as d:
        png = os.path.join(d, "p.png")
        rsvg(path, png)
        pw, ph, rows = read_png(png)
        if (pw, ph) != (round(w), round(h)):
            fail("rendered %dx%d, the SVG says %gx%g" % (pw, ph, w, h))
        colours = set()
        for y in range(0, ph, 7):
            for x in range(0, pw, 7):
                colours.add(bytes(rows[y][4 * x:4 * x + 4]))
        if len(colours) < 5:
            fail("the picture is blank (%d colours)" % len(colours))
        # the same picture on a canvas MARGIN px larger on every side:
        # whatever a renderer draws outside the picture shows there
        root.set("width", str(w + 2 * MARGIN))
        root.set("height", str(h + 2 * MARGIN))
        root.set("viewBox", "%g %g %g %g" % (-MARGIN, -MARGIN, w + 2 * MARGIN,
                                             h + 2 * MARGIN))
        big = os.path.join(d, "big.svg")
        tree.write(big)
        rsvg(big, png)
        bw, bh, rows = read_png(png)
        out = []
        for y in range(bh):
            row = rows[y]
            for x in range(bw):
                if MARGIN <= x < MARGIN + pw and MARGIN <= y < MARGIN + ph:
                    continue
                if row[4 * x + 3]:
                    out.append((x - MARGIN, y - MARGIN))
        if out:
            xs = [p[0] for p in out]
            ys = [p[1] for p in out]
            fail("%d pixels drawn outside the picture, from (%d,%d) to (%d,%d)"
                 % (len(out), min(xs), min(ys), max(xs), max(ys)))
    print("rendered %dx%d, nothing outside it" % (pw, ph))


def last_point(pts):
    return pts[-1]


def path_points(d):
    return [(float(a), float(b)) for a, b in
            re.findall(r"[ML]\s*(-?[\d.]+),(-?[\d.]+)", d)]


def text_of(el):
    """The text of a <text>, without its <title>."""
    s = el.text or ""
    for c in el:
        if c.tag != NS + "title":
            s += "".join(c.itertext())
        s += c.tail or ""
    return s


def values(path):
    root = ET.parse(path).getroot()
    bad = []
    for g in root.iter(NS + "g"):
        cls = g.get("class")
        if cls not in ("kinds", "callers", "processes"):
            continue
        ymax, y0, h = float(g.get("data-ymax")), float(g.get("data-y")), float(g.get("data-h"))

        def fy(v):
            return y0 + h - min(v / ymax, 1.0) * h
        cum = 0
        for a in g.iter(NS + "path"):
            end = int(a.get("data-end"))
            cum += end
            pts = path_points(a.get("d"))
            n = len(pts) // 2
            top = pts[n - 1][1]
            print("kind %s end=%d max=%s" % (a.get("data-kind"), end, a.get("data-max")))
            if abs(top - fy(cum)) > 0.02:
                bad.append("%s: last top at y=%.2f, %d bytes stacked is y=%.2f"
                           % (a.get("data-kind"), top, cum, fy(cum)))
        for c in g.iter(NS + "g"):
            if c.get("data-base-total"):
                print("base total=%s" % c.get("data-base-total"))
            if not c.get("data-caller"):
                continue
            end = int(c.get("data-end"))
            line = c.find(NS + "polyline")
            y = float(line.get("points").split()[-1].split(",")[1])
            print("caller %s %s end=%d" % (c.get("data-kind"), c.get("data-caller"), end))
            if abs(y - fy(end)) > 0.02:
                bad.append("%s: last point at y=%.2f, %d bytes is y=%.2f"
                           % (c.get("data-caller"), y, end, fy(end)))
        for l in g.iter(NS + "polyline"):
            if l.get("data-base-end"):
                print("base-caller end=%s" % l.get("data-base-end"))
    for g in root.iter(NS + "g"):
        if g.get("class") == "phase":
            label = [text_of(t) for t in g.iter(NS + "text")]
            above = [l for l in g.iter(NS + "polyline") if l.get("class") == "leader"]
            print("phase %s start=%s end=%s alloc=%s held=%s label=%s%s" % (
                g.get("data-phase"), g.get("data-start"), g.get("data-end"),
                g.get("data-alloc"), g.get("data-held"),
                label[0] if label else "-", " (above)" if above else ""))
        if g.get("class") == "trigger":
            print("trigger %s ts=%s" % (g.get("data-trigger"), g.get("data-ts")))
    for t in root.iter(NS + "text"):
        if t.get("class") == "legend":
            print("legend " + text_of(t))
        if t.get("class") in ("title", "subtitle", "paneltitle", "axis"):
            print("%s %s" % (t.get("class"), text_of(t)))
    if bad:
        fail("; ".join(bad))


def column(path, ns):
    root = ET.parse(path).getroot()
    for r in root.iter(NS + "rect"):
        if r.get("data-ts") is not None and int(r.get("data-ts")) >= ns:
            print(r.find(NS + "title").text)
            return
    fail("no column at or after %d ns" % ns)


def steps(path):
    root = ET.parse(path).getroot()
    shapes, bad = 0, []
    for el in root.iter():
        if el.tag == NS + "path" and el.get("class") == "area":
            pts = path_points(el.get("d"))
            pts.append(pts[0])
            what = "area " + el.get("data-kind")
        elif el.tag == NS + "polyline" and el.get("class") != "leader":
            pts = [tuple(float(v) for v in p.split(","))
                   for p in el.get("points").split()]
            what = "line %s %s" % (el.get("class"), el.get("stroke"))
        else:
            continue
        shapes += 1
        for (x1, y1), (x2, y2) in zip(pts, pts[1:]):
            if abs(x2 - x1) > 0.005 and abs(y2 - y1) > 0.005:
                bad.append("%s: from (%g,%g) to (%g,%g)" % (what, x1, y1, x2, y2))
                break
    if bad:
        fail("slanted: " + "; ".join(bad))
    print("%d areas and lines, all in steps" % shapes)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "render":
        render(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "values":
        values(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "column":
        column(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "steps":
        steps(sys.argv[2])
    else:
        fail("usage: svgcheck.py render|values|steps FILE.svg, or column FILE.svg NS")


main()
