#!/usr/bin/env python3
"""Preview sheet for the generated art (not shipped with the game).

    python3 tools/art/contact_sheet.py [--out /tmp/contact.png]

Shows: the atlas at 64 px; every tile as a 4x4 patch at 32 px (seams show
up here); a small battle-map mock-up at 32 px per square with a grid and a
few tokens; the creature icons and the condition badges on coloured discs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image, ImageDraw

REPO = Path(__file__).resolve().parents[2]
ASSETS = REPO / "assets"
T = 64
NAMES = ["floor", "difficult", "hindering", "wall", "low wall", "pit", "water", "darkness", "grass", "undergrowth"]
BG = (34, 36, 42)
INK = (235, 235, 220)

# the mock-up map, one letter per square
LEGEND = {".": 0, "r": 1, "c": 2, "#": 3, "-": 4, "o": 5, "~": 6, "d": 7, ",": 8, "T": 9}
MAP = [
    "################",
    "#......rr...dddd#",
    "#..c...rrr..dddd#",
    "#......r....dddd#",
    "#..----.....dd..#",
    "#.......oo......#",
    "#.......oo...c..#",
    "###..######..####",
    ",,,,,,,,,,,,,,,,",
    ",,TTT,,,,~~~~,,T",
    ",TTTT,,,~~~~~~,,",
    ",,TT,,,,,~~~~,,,",
]
TOKENS = [  # (icon, column, row, disc colour)
    ("fighter", 4, 5, (40, 90, 170)),
    ("archer", 5, 3, (40, 90, 170)),
    ("wizard", 3, 6, (40, 90, 170)),
    ("dwarf", 10, 5, (40, 90, 170)),
    ("goblin", 13, 2, (160, 40, 40)),
    ("orc", 14, 4, (160, 40, 40)),
    ("skeleton", 11, 3, (160, 40, 40)),
    ("wolf", 6, 10, (160, 40, 40)),
    ("ogre", 14, 10, (160, 40, 40)),
]
BADGES = ["prone", "flat_footed", "disabled", "dying", "dead", "staggered", "squeezed",
          "stable", "unconscious", "helpless", "flying", "heading"]
ICONS = ["fighter", "archer", "dwarf", "goblin", "orc", "ogre", "wolf", "griffon",
         "dragon", "wizard", "skeleton", "generic"]


def token(icon: Image.Image, size: int, colour) -> Image.Image:
    tok = Image.new("RGBA", (size * 4, size * 4), (0, 0, 0, 0))
    d = ImageDraw.Draw(tok)
    d.ellipse([2, 2, size * 4 - 3, size * 4 - 3], fill=colour + (255,), outline=(10, 10, 10, 255), width=6)
    tok = tok.resize((size, size), Image.Resampling.LANCZOS)
    ic = icon.resize((int(size * 0.72),) * 2, Image.Resampling.LANCZOS)
    off = (size - ic.width) // 2
    tok.alpha_composite(ic, (off, off))
    return tok


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("/tmp/contact.png"))
    args = ap.parse_args()

    atlas = Image.open(ASSETS / "tiles" / "terrain.png").convert("RGBA")
    n = atlas.width // T
    tiles = [atlas.crop((i * T, 0, (i + 1) * T, T)) for i in range(n)]
    small = [t.resize((32, 32), Image.Resampling.LANCZOS) for t in tiles]

    W = max(n * (T + 8), 16 * 32 + 20 + 4 * 132) + 8
    sheet = Image.new("RGBA", (W, 2000), BG + (255,))
    d = ImageDraw.Draw(sheet)
    y = 8
    # 1. the atlas at 64 px
    for i, t in enumerate(tiles):
        x = 8 + i * (T + 8)
        sheet.paste(t, (x, y))
        d.text((x, y + T + 2), f"{i} {NAMES[i] if i < len(NAMES) else ''}", fill=INK)
    y += T + 20
    # 2. 4x4 patches at 32 px
    for i, t in enumerate(small):
        x = 8 + i * (T + 8) * 2 if i < 5 else 8 + (i - 5) * (T + 8) * 2
        yy = y if i < 5 else y + 4 * 32 + 16
        for a in range(4):
            for b in range(4):
                sheet.paste(t, (x + a * 32, yy + b * 32))
        d.text((x, yy + 4 * 32 + 1), NAMES[i], fill=INK)
    y += 2 * (4 * 32 + 16) + 8
    # 3. map mock-up at 32 px with a grid and tokens
    mx, my = 8, y
    icons = {name: Image.open(ASSETS / "icons" / f"{name}.png").convert("RGBA") for name in ICONS}
    for r, line in enumerate(MAP):
        for c, ch in enumerate(line):
            sheet.paste(small[LEGEND[ch]], (mx + c * 32, my + r * 32))
    grid = Image.new("RGBA", sheet.size, (0, 0, 0, 0))
    gd = ImageDraw.Draw(grid)
    for c in range(len(MAP[0]) + 1):
        gd.line([(mx + c * 32, my), (mx + c * 32, my + len(MAP) * 32)], fill=(0, 0, 0, 70))
    for r in range(len(MAP) + 1):
        gd.line([(mx, my + r * 32), (mx + len(MAP[0]) * 32, my + r * 32)], fill=(0, 0, 0, 70))
    sheet.alpha_composite(grid)
    badge = {b: Image.open(ASSETS / "icons" / "badges" / f"{b}.png").convert("RGBA") for b in BADGES}
    for k, (name, c, r, colour) in enumerate(TOKENS):
        sheet.alpha_composite(token(icons[name], 30, colour), (mx + c * 32 + 1, my + r * 32 + 1))
    # 4. icons at 128 px and 48 px, badges at 32 px and 16 px
    ix = mx + len(MAP[0]) * 32 + 20
    for k, name in enumerate(ICONS):
        x = ix + (k % 4) * 132
        yy = my + (k // 4) * 140
        sheet.paste(Image.new("RGBA", (128, 128), (70, 60, 100, 255)), (x, yy))
        sheet.alpha_composite(icons[name], (x, yy))
        d.text((x, yy + 129), name, fill=INK)
    by = my + 3 * 140 + 4
    for k, name in enumerate(ICONS):
        sheet.alpha_composite(token(icons[name], 40, (120, 50, 50)), (ix + (k % 12) * 44, by))
    by += 52
    for k, name in enumerate(BADGES):
        x = ix + (k % 6) * 88
        yy = by + (k // 6) * 60
        sheet.paste(Image.new("RGBA", (36, 36), (150, 40, 40, 255)), (x, yy))
        sheet.alpha_composite(badge[name], (x + 2, yy + 2))
        sheet.paste(Image.new("RGBA", (20, 20), (40, 60, 130, 255)), (x + 42, yy + 8))
        sheet.alpha_composite(badge[name].resize((16, 16), Image.Resampling.LANCZOS), (x + 44, yy + 10))
        d.text((x, yy + 38), name, fill=INK)
    bottom = max(my + len(MAP) * 32, by + 2 * 60) + 8
    sheet = sheet.crop((0, 0, W, bottom))
    sheet.convert("RGB").save(args.out)
    print(f"wrote {args.out} ({sheet.width}x{sheet.height})")


if __name__ == "__main__":
    main()
