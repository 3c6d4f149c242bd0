#!/usr/bin/env python3
"""pngcheck.py - an independent PNG reader for the picture tests.

It decodes 8-bit RGB and RGBA PNG files with zlib and struct only (the
chunk layout, the five scanline filters of the PNG specification) and
checks pixels, so that the tests never trust the writer's own idea of what
it wrote.

Command line:
  pngcheck.py FILE W H [SPEC ...]
exits 0 when FILE is a PNG of W x H pixels and every SPEC holds:
  x,y,r,g,b,rad    some pixel within rad of (x, y) (a (2 rad + 1)^2 window)
                   has colour (r, g, b) within 60 per channel (an
                   antialiased edge pixel at 80 % coverage)
  !x,y,r,g,b,rad   no pixel of that window has that colour
"""
import struct
import sys
import zlib


def read_png(path):
    """(width, height, rows): rows[y] is a bytearray of 3 w RGB bytes."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG signature" % path)
    k, idat, w, h, ctype = 8, b"", 0, 0, -1
    while k < len(data):
        n, typ = struct.unpack(">I4s", data[k:k + 8])
        body = data[k + 8:k + 8 + n]
        if zlib.crc32(typ + body) & 0xffffffff != struct.unpack(">I", data[k + 8 + n:k + 12 + n])[0]:
            raise ValueError("%s: bad CRC in chunk %r" % (path, typ))
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace != 0:
                raise ValueError("%s: depth %d colour type %d interlace %d not handled" % (path, depth, ctype, interlace))
        elif typ == b"IDAT":
            idat += body
        elif typ == b"IEND":
            break
        k += 12 + n
    bpp = 3 if ctype == 2 else 4
    raw, rows, prev, stride = zlib.decompress(idat), [], bytearray(bpp * w), bpp * w + 1
    if len(raw) != h * stride:
        raise ValueError("%s: %d bytes of image data, expected %d" % (path, len(raw), h * stride))
    for y in range(h):
        f, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
        for i in range(bpp * w):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            else:
                pred = (0, a, b, (a + b) // 2)[f]
            line[i] = (line[i] + pred) & 255
        prev = line
        if bpp == 4:
            line = bytearray(v for i, v in enumerate(line) if i % 4 != 3)
        rows.append(line)
    return w, h, rows


def pixel(rows, x, y):
    r = rows[y]
    return tuple(r[3 * x:3 * x + 3])


def near(rows, w, h, x, y, colour, rad, tol=60):
    for yy in range(max(0, y - rad), min(h, y + rad + 1)):
        for xx in range(max(0, x - rad), min(w, x + rad + 1)):
            p = pixel(rows, xx, yy)
            if all(abs(p[i] - colour[i]) <= tol for i in range(3)):
                return True
    return False


def main(argv):
    path, w, h = argv[1], int(argv[2]), int(argv[3])
    try:
        W, H, rows = read_png(path)
    except (OSError, ValueError, zlib.error) as e:
        print("pngcheck: %s" % e)
        return 1
    bad = 0
    if (W, H) != (w, h):
        print("pngcheck: %s is %d x %d, expected %d x %d" % (path, W, H, w, h))
        return 1
    for spec in argv[4:]:
        neg = spec.startswith("!")
        x, y, r, g, b, rad = (int(float(v)) for v in spec.lstrip("!").split(","))
        if near(rows, W, H, x, y, (r, g, b), rad) == neg:
            print("pngcheck: %s: %s" % (path, spec))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
