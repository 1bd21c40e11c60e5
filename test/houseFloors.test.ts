// The house of src/README.md is the one `npm run arch` checks: its drawing shows the floors that
// .dependency-cruiser-rooms.cjs forbids arrows up between. And the vocabulary keeps to it too: a
// room that imports a type from types.ts depends on the room that defines it, which
// dependency-cruiser does not see through the re-export, so it is checked here.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const { FLOORS } = createRequire(import.meta.url)('../.dependency-cruiser-rooms.cjs') as { FLOORS: string[][] };

/** The rooms on each floor of the drawing, top to bottom: the `name/` words between its `|` walls. */
function drawnFloors(readme: string): string[][] {
  const drawing = readme.slice(readme.indexOf('## The house'));
  return drawing
    .split('\n')
    .filter((line) => line.startsWith(' | '))
    .map((line) => [...(line.split('|')[1] ?? '').matchAll(/([A-Za-z]+)\//g)].map((m) => m[1] as string));
}

/** `room` of each type types.ts re-exports from a room's module. */
function definingRooms(typesTs: string): Map<string, string> {
  const rooms = new Map<string, string>();
  for (const [, names = '', from = ''] of typesTs.matchAll(/export type \{([^}]*)\} from '\.\/([^']+)'/g)) {
    if (!from.includes('/')) continue;
    for (const name of names.split(',')) rooms.set(name.trim(), from.split('/')[0] as string);
  }
  return rooms;
}

/** [file, room] of every module in a room. */
function roomModules(): Array<[string, string]> {
  const inRoom = (dir: string, room: string): Array<[string, string]> =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => [join(dir, file), room]);
  const src = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
  return [...src.flatMap((entry) => inRoom(join('src', entry.name), entry.name)), ...inRoom('machines', 'machines')];
}

describe('the house', () => {
  it("src/README.md draws the floors dependency-cruiser checks, every room of src/ on one", () => {
    expect(drawnFloors(readFileSync(join(root, 'src/README.md'), 'utf8'))).toEqual(FLOORS);
    const rooms = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(FLOORS.flat().sort()).toEqual([...rooms, 'machines'].sort());
  });

  it('the src/ root holds the entry points, the vocabulary and the ground only (at most 6 modules): everything else lives in a room', () => {
    const rootModules = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => e.name);
    expect(rootModules.sort()).toEqual(['cli.ts', 'clock.ts', 'index.ts', 'settingValues.ts', 'types.ts']);
  });

  it('no room imports a type (through types.ts) from a room on a floor above it', () => {
    const floorOf = new Map(FLOORS.flatMap((rooms, floor) => rooms.map((room) => [room, floor] as const)));
    const definedIn = definingRooms(readFileSync(join(root, 'src/types.ts'), 'utf8'));
    expect(definedIn.size).toBeGreaterThan(20);
    const upward: string[] = [];
    for (const [file, room] of roomModules()) {
      const source = readFileSync(join(root, file), 'utf8');
      for (const [, names = ''] of source.matchAll(/import (?:type )?\{([^}]*)\} from '[./]*(?:src\/)?types\.js'/g)) {
        for (const name of names.split(',').map((n) => (n.replace(/^\s*type\s+/, '').split(/\s+as\s+/)[0] ?? '').trim())) {
          const home = definedIn.get(name);
          if (home !== undefined && (floorOf.get(home) as number) < (floorOf.get(room) as number)) upward.push(`${file}: ${name} (from ${home}/)`);
        }
      }
    }
    expect(upward).toEqual([]);
  });
});
