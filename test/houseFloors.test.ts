// The house of src/README.md is the one `npm run arch` checks: its drawing shows the floors that
// .dependency-cruiser-rooms.cjs forbids arrows up between, and the src/ root holds only the entry
// points and the ground (the package's subpath entries live in src/entries/, which is no room).
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

describe('the house', () => {
  it("src/README.md draws the floors dependency-cruiser checks, every room of src/ on one", () => {
    expect(drawnFloors(readFileSync(join(root, 'src/README.md'), 'utf8'))).toEqual(FLOORS);
    const rooms = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'entries').map((e) => e.name);
    expect(FLOORS.flat().sort()).toEqual([...rooms, 'machines'].sort());
  });

  it('the src/ root holds the entry points and the ground only: everything else lives in a room', () => {
    const rootModules = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => e.name);
    expect(rootModules.sort()).toEqual(['cli.ts', 'clock.ts', 'index.ts', 'settingValues.ts']);
  });
});
