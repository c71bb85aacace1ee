#!/usr/bin/env python3
"""Contrast of text in a region of an 8-bit RGB/RGBA PNG (stdlib only).

Usage: ui-contrast.py PNG X Y W H
Prints "BG_LUMINANCE FG_LUMINANCE RATIO": the background is the region's
most frequent colour, the text the pixel farthest from it in WCAG contrast
(the core of a glyph stem), RATIO their WCAG 2 contrast ratio
((L1 + 0.05) / (L2 + 0.05), relative luminance of sRGB). Used by
test-ui-dark.sh."""
import collections
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG: " + path)
    pos, idat = 8, b""
    width = height = depth = ctype = None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or ctype not in (2, 6):
        sys.exit("unsupported PNG (depth %s, colour type %s)" % (depth, ctype))
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
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
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def luminance(rgb):
    def lin(v):
        v /= 255.0
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(l1, l2):
    hi, lo = max(l1, l2), min(l1, l2)
    return (hi + 0.05) / (lo + 0.05)


def main(path, x, y, w, h):
    width, height, bpp, rows = decode(path)
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(width, x + w), min(height, y + h)
    if x1 <= x0 or y1 <= y0:
        sys.exit("empty region %d,%d %dx%d in a %dx%d image" % (x, y, w, h, width, height))
    count = collections.Counter()
    for yy in range(y0, y1):
        line = rows[yy]
        for xx in range(x0, x1):
            count[line[xx * bpp:xx * bpp + 3]] += 1
    bg = count.most_common(1)[0][0]
    lb = luminance(bg)
    best = max(count, key=lambda c: ratio(luminance(c), lb))
    lf = luminance(best)
    print("%.4f %.4f %.2f" % (lb, lf, ratio(lb, lf)))


if __name__ == "__main__":
    main(sys.argv[1], *(int(v) for v in sys.argv[2:6]))
