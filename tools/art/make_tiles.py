#!/usr/bin/env python3
"""Generate Estoc's terrain tile atlas: assets/tiles/terrain.png.

One horizontal row of 64x64 tiles, no spacing, in this order:

    0 floor          flagstones, neutral grey-beige
    1 difficult      rubble and broken stones, brownish
    2 hindering      a low heap of crates and a barrel on the floor
    3 wall           solid dark masonry, impassable
    4 low wall       a knee-high stone wall across the tile (cover)
    5 pit            a dark hole with a rocky rim
    6 water          blue, with ripples
    7 darkness       the floor seen through a heavy dark-indigo overlay
    8 grass          outdoor floor
    9 undergrowth    trees and bushes (outdoor difficult terrain)
   10 deep water     dark navy, long slow swells (one must swim in it)

Every tile wraps around (all noise is periodic and every drawn shape is
repeated at +/-64 px), so tiles of the same kind join without seams.
Light comes from the top left everywhere. All randomness is seeded, so the
output is the same on every run.

Needs Python 3.9+ with Pillow and numpy:  pip install -r requirements.txt
Run from anywhere:  python3 tools/art/make_tiles.py [--out PATH]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

T = 64  # tile size in px
SS = 4  # supersampling factor for drawn shapes
SEED = 0xE57C  # change to reroll every tile
N_TILES = 11

REPO = Path(__file__).resolve().parents[2]

# ------------------------------------------------------------------ palette
FLOOR = np.array([138, 131, 119])
FLOOR_MORTAR = np.array([84, 78, 70])
DIRT = np.array([108, 86, 64])
WOOD = np.array([156, 108, 60])
WALL_STONE = np.array([72, 72, 77])
WALL_MORTAR = np.array([24, 24, 30])
LOW_WALL = np.array([150, 146, 140])
WATER_DEEP = np.array([36, 78, 122])
WATER_SHALLOW = np.array([58, 118, 160])
DARK_TINT = np.array([20, 16, 44])
GRASS = np.array([92, 124, 58])
LEAF = np.array([46, 88, 42])


# ------------------------------------------------------------------ helpers
def rng_for(index: int) -> np.random.Generator:
    return np.random.default_rng(SEED * 100 + index)


def periodic_noise(rng, cells: int, octaves: int = 4, persistence: float = 0.5) -> np.ndarray:
    """Fractal value noise on a torus: a T x T array in about [-1, 1]."""
    out = np.zeros((T, T))
    amp, total = 1.0, 0.0
    for o in range(octaves):
        n = cells * (2 ** o)
        if n > T:
            break
        grid = rng.uniform(-1, 1, (n, n))
        pos = (np.arange(T) + 0.5) * n / T - 0.5
        i0 = np.floor(pos).astype(int)
        f = pos - i0
        f = f * f * (3 - 2 * f)  # smoothstep
        a, b = i0 % n, (i0 + 1) % n
        rows = grid[a][:, None, :] * (1 - f)[:, None, None] + grid[b][:, None, :] * f[:, None, None]
        rows = rows[:, 0, :]
        layer = rows[:, a] * (1 - f)[None, :] + rows[:, b] * f[None, :]
        out += amp * layer
        total += amp
        amp *= persistence
    return out / total


def shade(color, k) -> np.ndarray:
    """color (3,) times a scalar field k (T,T) -> (T,T,3)."""
    k = np.asarray(k, dtype=float)
    return np.asarray(color, dtype=float)[None, None, :] * k[..., None]


def lerp(a, b, t) -> np.ndarray:
    t = np.asarray(t, dtype=float)
    if t.ndim == 2:
        t = t[..., None]
    return np.asarray(a, dtype=float) * (1 - t) + np.asarray(b, dtype=float) * t


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


def grain(rng, amount: float) -> np.ndarray:
    """Fine per-pixel grain (multiplicative), periodic by construction."""
    return 1 + rng.normal(0, amount, (T, T))


class Layer:
    """A supersampled RGBA canvas whose shapes wrap around the tile edges."""

    def __init__(self):
        self.img = Image.new("RGBA", (T * SS, T * SS), (0, 0, 0, 0))
        self.draw = ImageDraw.Draw(self.img)

    @staticmethod
    def _copies(points):
        for dx in (-T, 0, T):
            for dy in (-T, 0, T):
                yield [((x + dx) * SS, (y + dy) * SS) for x, y in points]

    def polygon(self, points, fill):
        for pts in self._copies(points):
            self.draw.polygon(pts, fill=tuple(int(c) for c in fill))

    def ellipse(self, cx, cy, rx, ry, fill):
        for dx in (-T, 0, T):
            for dy in (-T, 0, T):
                box = [(cx - rx + dx) * SS, (cy - ry + dy) * SS, (cx + rx + dx) * SS, (cy + ry + dy) * SS]
                self.draw.ellipse(box, fill=tuple(int(c) for c in fill))

    def rounded_rect(self, box, radius, fill):
        x0, y0, x1, y1 = box
        for dx in (-T, 0, T):
            for dy in (-T, 0, T):
                b = [(x0 + dx) * SS, (y0 + dy) * SS, (x1 + dx) * SS, (y1 + dy) * SS]
                self.draw.rounded_rectangle(b, radius=radius * SS, fill=tuple(int(c) for c in fill))

    def line(self, points, fill, width):
        for pts in self._copies(points):
            self.draw.line(pts, fill=tuple(int(c) for c in fill), width=max(1, int(round(width * SS))))

    def rgba(self, blur: float = 0.0) -> np.ndarray:
        img = self.img
        if blur:
            # blur on a 3x3 wrapped copy so the blur itself wraps
            big = Image.new("RGBA", (img.width * 3, img.height * 3))
            for i in range(3):
                for j in range(3):
                    big.paste(img, (i * img.width, j * img.height))
            big = big.filter(ImageFilter.GaussianBlur(blur * SS))
            img = big.crop((img.width, img.height, img.width * 2, img.height * 2))
        small = img.resize((T, T), Image.Resampling.BOX)
        return np.asarray(small, dtype=float)


def over(base: np.ndarray, layer_rgba: np.ndarray) -> np.ndarray:
    a = layer_rgba[..., 3:4] / 255.0
    return base * (1 - a) + layer_rgba[..., :3] * a


def wrapped_blur(arr: np.ndarray, radius: float) -> np.ndarray:
    """Gaussian blur of a (T,T) float field that wraps around."""
    big = np.tile(arr, (3, 3))
    img = Image.fromarray(np.clip(big * 255, 0, 255).astype(np.uint8), "L")
    img = img.filter(ImageFilter.GaussianBlur(radius))
    return np.asarray(img, dtype=float)[T:2 * T, T:2 * T] / 255.0


def irregular_polygon(rng, cx, cy, r, n=7, jitter=0.35, squash=1.0, rot=0.0):
    pts = []
    base = rng.uniform(0, 2 * math.pi)
    for k in range(n):
        ang = base + 2 * math.pi * k / n + rng.uniform(-0.25, 0.25)
        rr = r * (1 + rng.uniform(-jitter, jitter))
        x, y = math.cos(ang) * rr, math.sin(ang) * rr * squash
        x, y = x * math.cos(rot) - y * math.sin(rot), x * math.sin(rot) + y * math.cos(rot)
        pts.append((cx + x, cy + y))
    return pts


# ------------------------------------------------------------ block layouts
def blocks(rows, warp, rng, warp_cells=4):
    """Masonry on a torus.

    rows: list of (y0, height, [joint x positions]) covering 0..T (mod T).
    Returns (stone_id, top, bottom, left, right): per-pixel id of the stone
    and the distance in px from the pixel to each side of its stone.
    """
    yy, xx = np.mgrid[0:T, 0:T].astype(float)
    if warp:
        xx = xx + warp * periodic_noise(rng, warp_cells, 3)
        yy = yy + warp * periodic_noise(rng, warp_cells, 3)
    xx %= T
    yy %= T
    sid = np.full((T, T), -1)
    top = np.zeros((T, T))
    bot = np.zeros((T, T))
    lef = np.zeros((T, T))
    rig = np.zeros((T, T))
    n = 0
    for y0, h, joints in rows:
        dy = (yy - y0) % T
        in_row = dy < h
        js = sorted(j % T for j in joints)
        for k, j in enumerate(js):
            w = (js[(k + 1) % len(js)] - j) % T or T
            dx = (xx - j) % T
            m = in_row & (dx < w)
            sid[m] = n
            top[m], bot[m] = dy[m], h - dy[m]
            lef[m], rig[m] = dx[m], w - dx[m]
            n += 1
    return sid, top, bot, lef, rig


def bevel(top, bot, lef, rig, width):
    """+1 on top/left edges (lit), -1 on bottom/right edges (shadowed)."""
    light = np.maximum(smoothstep(width, 0, top), smoothstep(width, 0, lef))
    dark = np.maximum(smoothstep(width, 0, bot), smoothstep(width, 0, rig))
    return light - dark


FLOOR_ROWS = [(14, 30, [10, 42]), (44, 34, [26, 56])]


def flagstones(rng) -> np.ndarray:
    sid, top, bot, lef, rig = blocks(FLOOR_ROWS, 1.3, rng)
    n = sid.max() + 1
    tone = rng.uniform(0.92, 1.07, n)[sid]
    warm = rng.uniform(-5, 5, n)[sid]
    noise = periodic_noise(rng, 4, 5, 0.55)
    col = shade(FLOOR, tone * (1 + 0.07 * noise) * grain(rng, 0.025))
    col[..., 0] += warm
    col[..., 2] -= warm
    # pits and scratches: a few darker specks
    speck = periodic_noise(rng, 16, 2)
    col *= (1 - 0.10 * smoothstep(0.45, 0.75, speck))[..., None]
    edge = np.minimum(np.minimum(top, bot), np.minimum(lef, rig))
    col += 16 * bevel(top, bot, lef, rig, 2.2)[..., None]
    mortar = smoothstep(1.3, 0.5, edge)
    return lerp(col, FLOOR_MORTAR, mortar * 0.95)


# ------------------------------------------------------------------- tiles
def tile_floor(rng):
    return flagstones(rng)


def tile_difficult(rng):
    noise = periodic_noise(rng, 4, 5, 0.6)
    col = shade(DIRT, (1 + 0.12 * noise) * grain(rng, 0.04))
    # gravel speckle
    g = periodic_noise(rng, 32, 1)
    col = lerp(col, DIRT * 0.7, smoothstep(0.3, 0.7, g) * 0.6)
    col = lerp(col, DIRT * 1.3, smoothstep(0.3, 0.7, -g) * 0.35)
    shadows, stones = Layer(), Layer()
    placed = []
    for _ in range(60):
        if len(placed) >= 13:
            break
        r = rng.uniform(4.5, 8.5) if len(placed) < 7 else rng.uniform(2.5, 4.5)
        cx, cy = rng.uniform(0, T), rng.uniform(0, T)
        ok = True
        for px, py, pr in placed:
            dx = min(abs(cx - px), T - abs(cx - px))
            dy = min(abs(cy - py), T - abs(cy - py))
            if math.hypot(dx, dy) < (r + pr) * 0.85:
                ok = False
                break
        if not ok:
            continue
        placed.append((cx, cy, r))
    for cx, cy, r in placed:
        pts = irregular_polygon(rng, cx, cy, r, n=int(rng.integers(5, 8)), jitter=0.3,
                                squash=rng.uniform(0.65, 1.0), rot=rng.uniform(0, math.pi))
        shadows.polygon([(x + 1.8, y + 2.2) for x, y in pts], (20, 14, 8, 170))
        base = np.array([150, 134, 112]) * rng.uniform(0.8, 1.08)
        stones.polygon(pts, (*(base * 0.72), 255))  # dark side
        # lit face: the polygon pulled toward the top-left
        lit = [(cx + (x - cx) * 0.82 - r * 0.12, cy + (y - cy) * 0.82 - r * 0.14) for x, y in pts]
        stones.polygon(lit, (*base, 255))
        hi = [(cx + (x - cx) * 0.4 - r * 0.3, cy + (y - cy) * 0.4 - r * 0.32) for x, y in pts]
        stones.polygon(hi, (*np.minimum(base * 1.15, 255), 200))
    col = over(col, shadows.rgba(blur=0.7))
    layer = stones.rgba()
    tex = 1 + 0.06 * periodic_noise(rng, 16, 2)
    layer[..., :3] *= tex[..., None]
    return over(col, layer)


def crate(layer, shadow, cx, cy, w, h, rot, tone):
    c, s = math.cos(rot), math.sin(rot)

    def P(u, v):
        return (cx + u * c - v * s, cy + u * s + v * c)

    hw, hh = w / 2, h / 2
    outer = [P(-hw, -hh), P(hw, -hh), P(hw, hh), P(-hw, hh)]
    shadow.polygon([(x + 3.0, y + 3.5) for x, y in outer], (15, 10, 5, 150))
    wood = WOOD * tone
    dark = wood * 0.55
    layer.polygon(outer, (*dark, 255))  # frame outline
    b = 1.0
    inner = [P(-hw + b, -hh + b), P(hw - b, -hh + b), P(hw - b, hh - b), P(-hw + b, hh - b)]
    layer.polygon(inner, (*wood * 0.82, 255))  # frame
    f = 3.2
    panel = [P(-hw + f, -hh + f), P(hw - f, -hh + f), P(hw - f, hh - f), P(-hw + f, hh - f)]
    layer.polygon(panel, (*wood, 255))
    # planks
    nplank = 3
    for k in range(1, nplank):
        v = -hh + f + (h - 2 * f) * k / nplank
        layer.line([P(-hw + f, v), P(hw - f, v)], (*wood * 0.62, 255), 0.8)
    # diagonal brace
    layer.polygon([P(-hw + f, hh - f - 2.2), P(-hw + f + 2.2, hh - f), P(hw - f, -hh + f + 2.2), P(hw - f - 2.2, -hh + f)],
                  (*wood * 0.72, 255))
    # lit top/left frame edges, shaded bottom/right
    layer.line([P(-hw + b, hh - b), P(-hw + b, -hh + b), P(hw - b, -hh + b)], (*np.minimum(wood * 1.25, 255), 255), 1.0)
    layer.line([P(hw - b, -hh + b), P(hw - b, hh - b), P(-hw + b, hh - b)], (*wood * 0.55, 255), 1.0)


def barrel(layer, shadow, cx, cy, r):
    shadow.ellipse(cx + 2.8, cy + 3.2, r, r, (15, 10, 5, 150))
    wood = np.array([128, 84, 46])
    layer.ellipse(cx, cy, r, r, (*wood * 0.5, 255))
    layer.ellipse(cx, cy, r - 1.0, r - 1.0, (92, 92, 96, 255))  # iron hoop
    layer.ellipse(cx, cy, r - 2.2, r - 2.2, (*wood * 0.95, 255))
    layer.ellipse(cx - 0.6, cy - 0.6, r - 3.6, r - 3.6, (*wood * 1.12, 255))
    for k in range(-1, 2):
        x = cx + k * (r - 2.2) * 0.45
        half = math.sqrt(max((r - 3.0) ** 2 - (x - cx) ** 2, 0))
        layer.line([(x, cy - half), (x, cy + half)], (*wood * 0.7, 255), 0.6)
    layer.ellipse(cx, cy, 1.2, 1.2, (*wood * 0.45, 255))  # bung


def tile_hindering(rng):
    col = flagstones(rng_for(0))  # the same floor as tile 0, so the heap sits on it
    shadow, objs = Layer(), Layer()
    # a heap that fills most of the square but leaves floor showing around it
    barrel(objs, shadow, 46, 19, 10.5)
    crate(objs, shadow, 24, 26, 29, 29, math.radians(-7), 1.0)
    crate(objs, shadow, 45, 44, 21, 21, math.radians(12), 0.9)
    crate(objs, shadow, 17, 49, 15, 14, math.radians(-20), 0.8)
    col = over(col, shadow.rgba(blur=1.0))
    layer = objs.rgba()
    layer[..., :3] *= grain(rng, 0.03)[..., None]
    return over(col, layer)


WALL_ROWS = [(2, 21, [4, 26, 46]), (23, 21, [15, 36, 57]), (44, 22, [9, 31, 51])]


def tile_wall(rng):
    sid, top, bot, lef, rig = blocks(WALL_ROWS, 0.9, rng)
    n = sid.max() + 1
    tone = rng.uniform(0.85, 1.12, n)[sid]
    noise = periodic_noise(rng, 8, 4, 0.6)
    col = shade(WALL_STONE, tone * (1 + 0.12 * noise) * grain(rng, 0.05))
    # rough, pitted surface
    pits = periodic_noise(rng, 16, 2)
    col *= (1 - 0.25 * smoothstep(0.35, 0.7, pits))[..., None]
    edge = np.minimum(np.minimum(top, bot), np.minimum(lef, rig))
    bev = bevel(top, bot, lef, rig, 3.5)
    col += np.where(bev > 0, 46, 30)[..., None] * bev[..., None]
    mortar = smoothstep(1.8, 0.8, edge)
    return lerp(col, WALL_MORTAR, mortar)


LOW_WALL_TOP, LOW_WALL_CAP, LOW_WALL_BOTTOM = 17, 28, 45  # cap face, then front face


def stone_row(layer, rng, y0, y1, start, widths, color, lit):
    """A course of rounded stones from x=start, wrapping around the tile."""
    x = start
    for w in widths:
        tone = rng.uniform(0.86, 1.1)
        c = color * tone
        r = min(w, y1 - y0) * 0.3
        box = (x + 0.6, y0 + 0.6, x + w - 0.6, y1 - 0.6)
        layer.rounded_rect(box, r, (*c * 0.62, 255))  # shaded bottom/right rim
        layer.rounded_rect((box[0], box[1], box[2] - 1.1, box[3] - 1.1), r, (*np.minimum(c * lit, 255), 255))
        layer.rounded_rect((box[0] + 1.0, box[1] + 1.0, box[2] - 1.6, box[3] - 1.6), r * 0.8, (*c, 255))
        x += w


def tile_low_wall(rng):
    col = flagstones(rng_for(0))
    yy, xx = np.mgrid[0:T, 0:T].astype(float)
    # shadow cast on the floor south of the wall
    sh = smoothstep(LOW_WALL_BOTTOM + 12, LOW_WALL_BOTTOM + 2, yy) * (yy >= LOW_WALL_TOP)
    col *= (1 - 0.6 * sh)[..., None]
    lay = Layer()
    # dark crevices behind the stones
    lay.polygon([(-1, LOW_WALL_TOP), (T + 1, LOW_WALL_TOP), (T + 1, LOW_WALL_BOTTOM), (-1, LOW_WALL_BOTTOM)],
                (34, 32, 36, 255))
    # top face: capstones in the light
    stone_row(lay, rng, LOW_WALL_TOP, LOW_WALL_CAP + 0.5, 3, [13, 11, 15, 12, 13], LOW_WALL * 1.12, 1.25)
    # front face: two staggered courses in shade
    mid = (LOW_WALL_CAP + LOW_WALL_BOTTOM) / 2
    stone_row(lay, rng, LOW_WALL_CAP, mid, 9, [12, 10, 14, 11, 17], LOW_WALL * 0.72, 1.15)
    stone_row(lay, rng, mid, LOW_WALL_BOTTOM, 1, [15, 12, 13, 10, 14], LOW_WALL * 0.66, 1.15)
    layer = lay.rgba()
    layer[..., :3] *= (grain(rng, 0.05) * (1 + 0.08 * periodic_noise(rng, 16, 2)))[..., None]
    col = over(col, layer)
    return col


def tile_pit(rng):
    yy, xx = np.mgrid[0:T, 0:T].astype(float) + 0.5
    dx, dy = (xx - T / 2) / (T / 2), (yy - T / 2) / (T / 2)
    p = 5.0
    r = (np.abs(dx) ** p + np.abs(dy) ** p) ** (1 / p)  # rounded square: 1 at the edges
    jag = periodic_noise(rng, 8, 3, 0.6)
    rr = r + 0.10 * jag
    rock_noise = periodic_noise(rng, 8, 4, 0.6)
    rock = shade(np.array([96, 84, 72]), (1 + 0.18 * rock_noise) * grain(rng, 0.05))
    # the inner wall: lit on the bottom-right (faces the light), dark top-left
    facing = np.clip(0.5 + 0.45 * (dx + dy) / np.sqrt(2), 0, 1)
    wall_k = smoothstep(0.5, 0.9, rr)
    wall = rock * (0.35 + 0.55 * facing)[..., None]
    # strata lines on the inner wall
    strata = smoothstep(0.55, 0.9, np.abs(np.sin(rr * 26 + 2 * rock_noise)))
    wall *= (1 - 0.25 * strata * wall_k)[..., None]
    void = lerp(np.array([4, 3, 6]), np.array([18, 14, 18]), smoothstep(0.2, 0.6, rr))
    col = lerp(void, wall, wall_k)
    # the lip: broken floor around the hole; the very edge of the tile is the
    # same rim colour on all sides, so pits next to each other join up
    lip = smoothstep(0.86, 0.97, rr)
    lip_col = shade(np.array([104, 94, 82]), (1 + 0.1 * rock_noise) * grain(rng, 0.04))
    col = lerp(col, lip_col, lip)
    crack = smoothstep(0.02, 0.0, np.abs(rr - 0.9)) * 0.5
    col *= (1 - crack)[..., None]
    return col


def tile_water(rng):
    yy, xx = np.mgrid[0:T, 0:T].astype(float)
    depth = periodic_noise(rng, 2, 3, 0.5)
    col = lerp(WATER_DEEP, WATER_SHALLOW, 0.5 + 0.45 * depth)
    warp = periodic_noise(rng, 4, 3)
    tau = 2 * math.pi / T
    w1 = np.sin(tau * (2 * xx + 5 * yy) + 3.0 * warp)
    w2 = np.sin(tau * (-3 * xx + 4 * yy) + 2.5 * periodic_noise(rng, 4, 3) + 1.3)
    crest1 = smoothstep(0.86, 0.97, w1) * (0.6 + 0.4 * periodic_noise(rng, 4, 2))
    crest2 = smoothstep(0.9, 0.98, w2) * (0.5 + 0.5 * periodic_noise(rng, 4, 2))
    trough = smoothstep(-0.7, -1.0, w1)
    col = lerp(col, WATER_DEEP * 0.75, trough * 0.5)
    col = lerp(col, np.array([150, 196, 222]), np.clip(np.maximum(crest1, crest2), 0, 1) * 0.75)
    sparkle = smoothstep(0.55, 0.8, periodic_noise(rng, 16, 1)) * smoothstep(0.3, 0.9, w1)
    col = lerp(col, np.array([215, 236, 246]), sparkle * 0.8)
    return col * grain(rng, 0.015)[..., None]


def tile_deep_water(rng):
    """Deep water: much darker than the shallows, few and long swells, no sparkle on the bottom."""
    yy, xx = np.mgrid[0:T, 0:T].astype(float)
    depth = periodic_noise(rng, 2, 3, 0.5)
    col = lerp(np.array([14, 34, 70]), WATER_DEEP * 0.8, 0.5 + 0.4 * depth)
    tau = 2 * math.pi / T
    swell = np.sin(tau * (1 * xx + 2 * yy) + 2.0 * periodic_noise(rng, 2, 3))
    crest = smoothstep(0.8, 0.98, swell) * (0.5 + 0.5 * periodic_noise(rng, 4, 2))
    col = lerp(col, np.array([70, 112, 156]), np.clip(crest, 0, 1) * 0.55)
    trough = smoothstep(-0.6, -1.0, swell)
    col = lerp(col, np.array([8, 20, 44]), trough * 0.5)
    return col * grain(rng, 0.012)[..., None]


def tile_darkness(rng):
    floor = flagstones(rng_for(0))
    fog = periodic_noise(rng, 2, 4, 0.55)
    k = 0.26 + 0.06 * fog  # how much floor light gets through
    col = floor * k[..., None] + DARK_TINT * (1 - k)[..., None] * 0.9
    # drifting murk: soft violet wisps (contour lines of a periodic noise),
    # a texture neither the wall nor the pit has
    swirl = periodic_noise(rng, 2, 3, 0.45)
    fade = 0.5 + 0.5 * periodic_noise(rng, 2, 2)
    wisps = smoothstep(0.09, 0.0, np.abs(swirl)) + smoothstep(0.07, 0.0, np.abs(swirl - 0.35)) * 0.7
    col = lerp(col, np.array([96, 84, 150]), np.clip(wisps * fade, 0, 1) * 0.45)
    return col


def grass_base(rng, color, blades=220, blade_len=(2.0, 4.0)):
    noise = periodic_noise(rng, 4, 5, 0.55)
    col = shade(color, (1 + 0.13 * noise) * grain(rng, 0.04))
    patches = periodic_noise(rng, 2, 3)
    col = lerp(col, color * np.array([1.08, 1.02, 0.8]), smoothstep(0.1, 0.6, patches) * 0.5)
    lay = Layer()
    for _ in range(blades):
        x, y = rng.uniform(0, T), rng.uniform(0, T)
        ln = rng.uniform(*blade_len)
        ang = math.radians(rng.uniform(-110, -70))  # mostly upright blades
        tone = rng.choice([0.7, 0.8, 1.2, 1.3])
        c = np.minimum(color * tone * np.array([1, 1.05, 0.9]), 255)
        lay.line([(x, y), (x + math.cos(ang) * ln, y + math.sin(ang) * ln)], (*c, 210), 0.7)
    return over(col, lay.rgba())


def tile_grass(rng):
    col = grass_base(rng, GRASS)
    lay = Layer()
    for _ in range(5):  # a few tiny flowers
        x, y = rng.uniform(0, T), rng.uniform(0, T)
        lay.ellipse(x, y, 0.9, 0.9, (230, 220, 140, 230))
    return over(col, lay.rgba())


def canopy(layer, shadow, rng, cx, cy, r, color):
    shadow.polygon(irregular_polygon(rng, cx + r * 0.35, cy + r * 0.45, r * 1.02, n=14, jitter=0.1),
                   (8, 18, 6, 170))
    outline = irregular_polygon(rng, cx, cy, r, n=16, jitter=0.12)
    layer.polygon(outline, (*color * 0.55, 255))
    # leafy clumps, lit from the top left
    layer.polygon([(cx + (x - cx) * 0.88 - r * 0.06, cy + (y - cy) * 0.88 - r * 0.07) for x, y in outline],
                  (*color * 0.8, 255))
    for _ in range(int(r * 1.1)):
        ang = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(0, r * 0.6)
        lx, ly = cx + math.cos(ang) * d, cy + math.sin(ang) * d
        rr = rng.uniform(r * 0.22, r * 0.38)
        lit = 0.5 - 0.5 * ((lx - cx) + (ly - cy)) / (r * 0.9)
        tone = 0.85 + 0.5 * np.clip(lit, 0, 1)
        layer.ellipse(lx, ly, rr, rr, (*np.minimum(color * tone, 255), 255))
    layer.ellipse(cx - r * 0.3, cy - r * 0.3, r * 0.2, r * 0.2, (*np.minimum(color * 1.5, 255), 200))


def tile_undergrowth(rng):
    col = grass_base(rng, GRASS * 0.72, blades=260, blade_len=(2.0, 5.0))
    shadow, leaves = Layer(), Layer()
    # two trees and some bushes, placed so they wrap across tile edges
    canopy(leaves, shadow, rng, 18, 20, 16, LEAF)
    canopy(leaves, shadow, rng, 50, 46, 14, LEAF * np.array([1.1, 1.05, 0.9]))
    for cx, cy, r in [(48, 10, 7), (14, 52, 8), (32, 40, 5.5), (60, 28, 5)]:
        canopy(leaves, shadow, rng, cx, cy, r, np.array([70, 108, 46]))
    col = over(col, shadow.rgba(blur=1.2))
    layer = leaves.rgba()
    layer[..., :3] *= grain(rng, 0.05)[..., None]
    return over(col, layer)


TILES = [
    ("floor", tile_floor),
    ("difficult", tile_difficult),
    ("hindering", tile_hindering),
    ("wall", tile_wall),
    ("low_wall", tile_low_wall),
    ("pit", tile_pit),
    ("water", tile_water),
    ("darkness", tile_darkness),
    ("grass", tile_grass),
    ("undergrowth", tile_undergrowth),
    ("deep_water", tile_deep_water),
]
assert len(TILES) == N_TILES


def build() -> Image.Image:
    atlas = Image.new("RGBA", (T * N_TILES, T), (0, 0, 0, 255))
    for i, (_, fn) in enumerate(TILES):
        arr = np.clip(np.rint(fn(rng_for(i))), 0, 255).astype(np.uint8)
        atlas.paste(Image.fromarray(arr, "RGB").convert("RGBA"), (i * T, 0))
    return atlas


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "assets" / "tiles" / "terrain.png")
    args = ap.parse_args()
    atlas = build()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atlas.save(args.out, optimize=True)
    print(f"wrote {args.out} ({atlas.width}x{atlas.height}, {N_TILES} tiles of {T}px)")


if __name__ == "__main__":
    main()
