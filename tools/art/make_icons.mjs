// Regenerates Estoc's creature icons and condition badges from the
// game-icons set (npm: @iconify-json/game-icons, CC BY 3.0), rasterised
// with @resvg/resvg-js, and writes assets/CREDITS.md.
//
// Usage (from tools/art/):  npm ci && node make_icons.mjs
//
// Output is white on transparent, the glyph's own bounding box centred in a
// square with a small margin, so every icon fills its frame the same way.

import { Resvg } from '@resvg/resvg-js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const assets = join(repo, 'assets');
const require = createRequire(import.meta.url);

const setPkg = require('@iconify-json/game-icons/package.json');
const resvgPkg = require('@resvg/resvg-js/package.json');
const set = require('@iconify-json/game-icons/icons.json');
const info = require('@iconify-json/game-icons/info.json');

// The npm package records only the set's author ("GameIcons"). The author
// of each icon is the folder that holds its SVG in the upstream repository
// https://github.com/game-icons/icons, so each entry below names that
// upstream file and the author is read off its folder (see authorOf), not
// typed by hand. Upstream paths checked against game-icons/icons at commit
// b659ba7773ed6ad1e1fee228b089f7104bea4984 (2025-05-04): every name is in
// exactly one folder except dragon-head (lorc/ and faithtoken/), and the
// npm body for every icon here starts with the same path data as the
// upstream file named.
const AUTHOR_OF_FOLDER = {
  delapouite: 'Delapouite',
  lorc: 'Lorc',
  sbed: 'Sbed',
  skoll: 'Skoll',
};

const ICONS = [
  // file name        game-icons name      upstream file (folder = author)   rotate
  ['fighter',       'visored-helm',      'lorc/visored-helm.svg'],
  ['archer',        'archer',            'delapouite/archer.svg'],
  ['dwarf',         'dwarf-face',        'delapouite/dwarf-face.svg'],
  ['goblin',        'goblin-head',       'delapouite/goblin-head.svg'],
  ['orc',           'orc-head',          'delapouite/orc-head.svg'],
  ['ogre',          'ogre',              'delapouite/ogre.svg'],
  ['wolf',          'wolf-head',         'lorc/wolf-head.svg'],
  ['griffon',       'griffin-symbol',    'delapouite/griffin-symbol.svg'],
  // dragon-head is in two upstream folders; the npm body (path data from
  // "M200.947 18.686") is lorc's, not faithtoken's ("M72.81 429.82").
  ['dragon',        'dragon-head',       'lorc/dragon-head.svg'],
  ['wizard',        'wizard-face',       'delapouite/wizard-face.svg'],
  ['skeleton',      'skeleton',          'skoll/skeleton.svg'],
  ['crocodile',     'croc-jaws',         'lorc/croc-jaws.svg'],
  ['lizardfolk',    'lizardman',         'lorc/lizardman.svg'],
  ['horse',         'horse-head',        'delapouite/horse-head.svg'],
  ['generic',       'meeple',            'delapouite/meeple.svg'],
];

const BADGES = [
  ['prone',         'falling',           'sbed/falling.svg'],
  ['flat_footed',   'surprised',         'lorc/surprised.svg'],
  ['disabled',      'arm-bandage',       'delapouite/arm-bandage.svg'],
  ['dying',         'heart-drop',        'lorc/heart-drop.svg'],
  ['dead',          'death-skull',       'sbed/death-skull.svg'],
  ['staggered',     'knocked-out-stars', 'delapouite/knocked-out-stars.svg'],
  ['squeezed',      'contract',          'delapouite/contract.svg'],
  ['stable',        'heart-beats',       'delapouite/heart-beats.svg'],
  ['unconscious',   'night-sleep',       'delapouite/night-sleep.svg'],
  ['helpless',      'handcuffed',        'delapouite/handcuffed.svg'],
  ['grappling',     'grab',              'lorc/grab.svg'],
  ['pinned',        'manacles',          'lorc/manacles.svg'],
  ['flying',        'feathered-wing',    'lorc/feathered-wing.svg'],
  ['off_balance',   'drowning',          'lorc/drowning.svg'],
  ['cowering',      'terror',            'lorc/terror.svg'],
  ['stunned',       'star-swirl',        'lorc/star-swirl.svg'],
  ['disarmed',      'drop-weapon',       'lorc/drop-weapon.svg'],
  ['in_pit',        'hole-ladder',       'delapouite/hole-ladder.svg'],
  ['hidden',        'hood',              'lorc/hood.svg'],
  // plain-arrow points down in the set: turned 180 degrees to point north.
  ['heading',       'plain-arrow',       'delapouite/plain-arrow.svg', 180],
];

function authorOf(upstream) {
  const folder = upstream.split('/')[0];
  const author = AUTHOR_OF_FOLDER[folder];
  if (!author) throw new Error(`${upstream}: no author listed for upstream folder ${folder}/`);
  return author;
}

function iconBody(name) {
  const icon = set.icons[name];
  if (!icon) throw new Error(`game-icons has no icon named ${name}`);
  const w = icon.width ?? set.width ?? 512;
  const h = icon.height ?? set.height ?? 512;
  return { body: icon.body.replaceAll('currentColor', '#ffffff'), w, h };
}

function render(name, size, margin, rotate = 0) {
  const { body, w, h } = iconBody(name);
  const g = rotate
    ? `<g fill="#ffffff" transform="rotate(${rotate} ${w / 2} ${h / 2})">${body}</g>`
    : `<g fill="#ffffff">${body}</g>`;
  // First pass: find the glyph's bounding box in icon units.
  const probe = new Resvg(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}">${g}</svg>`,
  );
  const bb = probe.getBBox();
  if (!bb) throw new Error(`${name}: empty drawing`);
  // Second pass: a square viewBox around the box, with `margin` pixels of
  // the output image left free on every side.
  const side = Math.max(bb.width, bb.height);
  const unitsPerPx = side / (size - 2 * margin);
  const full = size * unitsPerPx;
  const cx = bb.x + bb.width / 2;
  const cy = bb.y + bb.height / 2;
  const vb = [cx - full / 2, cy - full / 2, full, full].map((v) => v.toFixed(3)).join(' ');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${vb}" width="${size}" height="${size}">${g}</svg>`;
  return new Resvg(svg, { fitTo: { mode: 'width', value: size } }).render().asPng();
}

function emit(list, dir, size, margin) {
  mkdirSync(dir, { recursive: true });
  const rows = [];
  for (const [file, name, upstream, rotate] of list) {
    const author = authorOf(upstream);
    const out = join(dir, `${file}.png`);
    writeFileSync(out, render(name, size, margin, rotate));
    rows.push({ path: relative(assets, out), name, author, rotate });
    console.log(`${relative(repo, out)}  <-  game-icons:${name} (${author})`);
  }
  return rows;
}

const icons = emit(ICONS, join(assets, 'icons'), 128, 6);
const badges = emit(BADGES, join(assets, 'icons', 'badges'), 32, 1);

// ---------------------------------------------------------------- credits
const licence = info.license; // { title, spdx, url }
const ccUrl = 'https://creativecommons.org/licenses/by/3.0/';
const authorUrl = {
  Lorc: 'https://lorcblog.blogspot.com',
  Delapouite: 'https://delapouite.com',
  Sbed: 'https://opengameart.org/content/95-game-icons',
  // Skoll has no web address in upstream license.txt: falls back to game-icons.net.
};
const row = (r) => {
  const mod = r.rotate ? `, rotated ${r.rotate}°` : '';
  return `| \`${r.path}\` | \`${r.name}\` (https://game-icons.net)${mod} | ${r.author} | ${licence.title} |`;
};
const authors = [...new Set([...icons, ...badges].map((r) => r.author))].sort();

const tiles = [
  'floor', 'difficult terrain (rubble)', 'hindering obstacle (crates and a barrel)',
  'blocking wall', 'low wall', 'pit', 'water', 'darkness', 'grass', 'trees / undergrowth',
];

const md = `# Credits

Every file under \`assets/\`, where it came from, and its licence.
This file is written by \`tools/art/make_icons.mjs\`; edit that script, not this file.

## Terrain tiles

| file | source | licence |
| --- | --- | --- |
| \`tiles/terrain.png\` | Made for Estoc with \`tools/art/make_tiles.py\` (Python + Pillow, seeded noise, no outside images). One row of 64x64 tiles: ${tiles.map((t, i) => `${i} ${t}`).join(', ')}. | CC0 1.0 (https://creativecommons.org/publicdomain/zero/1.0/), or at your choice the same licence as the game |

## Rules texts

| file | source | licence |
| --- | --- | --- |
| \`rules/000_e111ff7e67995029.txt\` … \`rules/004_fbebb9850f97e21f.txt\` | The five French rules texts of the game's specification (\`../shared/rules/\`, see its \`RULES-INDEX.md\`), copied unchanged: d20 System Reference Document material (the 3.5 SRD's combat and movement chapters in French, the Pathfinder RPG French wiki's "Déplacement et position", a wiki's movement chapter and aerial combat rules). Compiled into the game (\`src/rules_text.rs\`) so that a citation such as 004:259 shows the rule's own words. | Open Game Content under the Open Game License v1.0a, as the d20 SRD and the Pathfinder RPG reference are published; the texts carry no notice of their own, so this attribution rests on their origin as the specification names it |

## Creature icons and condition badges

All icons come from the **Game Icons** set (https://game-icons.net, ${info.author.url}),
taken from the npm package \`${setPkg.name}\` version ${setPkg.version}
(which records the set's author as "${info.author.name}" and its licence as ${licence.title}, ${licence.url}),
and rasterised to PNG (white on transparent, recentred, rescaled${badges.some((b) => b.rotate) ? ', one rotated as noted' : ''})
with \`${resvgPkg.name}\` ${resvgPkg.version} by \`tools/art/make_icons.mjs\`.
Those changes are ours; the drawings are the authors'.

Licence: **Creative Commons Attribution 3.0 Unported (CC BY 3.0)**, ${ccUrl}

Attribution: icons by ${authors.map((a) => `${a} (${authorUrl[a] ?? 'https://game-icons.net'})`).join(', ')},
from https://game-icons.net, under CC BY 3.0 (${ccUrl}).

The author of each icon is the folder that holds it in the upstream
repository https://github.com/game-icons/icons (the npm package itself names only "${info.author.name}").

### Creature icons (128x128)

| file | game-icons icon | author | licence |
| --- | --- | --- | --- |
${icons.map(row).join('\n')}

### Condition badges (32x32)

| file | game-icons icon | author | licence |
| --- | --- | --- | --- |
${badges.map(row).join('\n')}
`;
writeFileSync(join(assets, 'CREDITS.md'), md);
console.log('assets/CREDITS.md');
