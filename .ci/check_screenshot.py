"""Fails unless a PNG screenshot exists and shows the board: many distinct colours (the textured tiles),
and no single colour (an empty background) covering half of it.

Reads the PNG with the standard library only (zlib), so CI needs no imaging package.
"""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat, width, height, colour_type = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
            assert depth == 8, f"unexpected bit depth {depth}"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    channels = {2: 3, 6: 4}[colour_type]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def main(path):
    width, height, channels, rows = pixels(path)
    counts = {}
    for row in rows[:: max(1, height // 100)]:
        for x in range(0, width * channels, channels * max(1, width // 100)):
            colour = row[x:x + 3]
            counts[colour] = counts.get(colour, 0) + 1
    samples = sum(counts.values())
    commonest = max(counts.values()) / samples
    print(f"{path}: {width}x{height}, {len(counts)} distinct colours in a 100x100 sample, "
          f"the commonest covering {commonest:.0%}")
    if len(counts) < 300 or commonest > 0.5:
        sys.exit(f"{path} does not show the board: the tiles are missing or the window is blank")


if __name__ == "__main__":
    main(sys.argv[1])
