#!/usr/bin/env python3
"""Writes dashboard/icon-192.png and dashboard/icon-512.png: the bell of dashboard/icon.svg
drawn as PNG (home screens want PNG icons: iOS's apple-touch-icon, Android's install prompt).
Python 3 standard library only (zlib); 4x4 supersampling for smooth edges. Rerun after
changing the design; the next build embeds the new files (Plugins/DashboardAssetsPlugin)."""
import math, pathlib, struct, zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
BLUE, WHITE = (0x1F, 0x6F, 0xEB), (0xFF, 0xFF, 0xFF)


def shade(x, y):
    """The colour at (x, y) in the SVG's 64x64 box, or None outside the rounded square."""
    r = 14
    cx, cy = min(max(x, r), 64 - r), min(max(y, r), 64 - r)
    if (x - cx) ** 2 + (y - cy) ** 2 > r * r:
        return None
    if (x - 32) ** 2 + (y - 49) ** 2 <= 25:                       # the clapper
        return WHITE
    if 12 <= y <= 26 and (x - 32) ** 2 / 169 + (y - 26) ** 2 / 196 <= 1:   # the dome
        return WHITE
    if 26 <= y <= 36 and 19 <= x <= 45:                          # the body
        return WHITE
    if 36 <= y <= 43:                                            # the flare
        half = 13 + (y - 36) * 5 / 7
        if abs(x - 32) <= half:
            return WHITE
    return BLUE


def png(size):
    rows = []
    n = 4
    for py in range(size):
        row = bytearray([0])
        for px in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(n):
                for sx in range(n):
                    c = shade((px + (sx + 0.5) / n) * 64 / size, (py + (sy + 0.5) / n) * 64 / size)
                    if c is not None:
                        acc[0] += c[0]; acc[1] += c[1]; acc[2] += c[2]; acc[3] += 255
            k = n * n
            alpha = acc[3] // k
            rgb = [a // max(1, acc[3] // 255) if acc[3] else 0 for a in acc[:3]]
            row += bytes(rgb + [alpha])
        rows.append(bytes(row))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")


for size in (192, 512):
    out = ROOT / "dashboard" / f"icon-{size}.png"
    out.write_bytes(png(size))
    print(f"wrote {out.relative_to(ROOT)} ({out.stat().st_size} bytes)")
