// The second half of `npm run arch`: the house. Rooms import down or sideways, never up, and no
// cycle between rooms (folders), however long. It runs on its own because the entry points must
// be left out: src/index.ts (and the entries beside it in src/entries/) import the machines and every room, so with it the folder src/ would
// close a loop through every room. test/houseFloors.test.ts checks that src/README.md draws these
// floors, and that no room imports a type (through types.ts) from a room above it.
const { options } = require('./.dependency-cruiser.cjs');

/**
 * The rooms of src/ and machines/ on floors, top to bottom, as src/README.md draws them. The entry
 * points (src/index.ts, src/cli.ts) stand above the house; clock.ts and settingValues.ts, the
 * ground, below it.
 */
const FLOORS = [
  ['cli'],
  ['workbench'],
  ['machines', 'report'],
  ['run'],
  ['storage'],
  ['config', 'adapters', 'telemetry', 'worker', 'demo'],
  ['evaluation'],
  ['executors'],
  ['gepa', 'budget', 'lm', 'runtimeModel'],
  ['identity', 'errors', 'peers'],
];
const roomPath = (room) => (room === 'machines' ? '^machines/' : `^src/${room}/`);
/** One rule per floor: its rooms import nothing on a floor above. */
const noArrowUp = FLOORS.slice(1).map((floor, below) => ({
  name: 'no-arrow-up',
  severity: 'error',
  comment: `${floor.join(', ')} must not import a room above (${FLOORS.slice(0, below + 1).flat().join(', ')}): see the house in src/README.md.`,
  from: { path: floor.map(roomPath) },
  to: { path: FLOORS.slice(0, below + 1).flat().map(roomPath) },
}));

module.exports = {
  forbidden: [
    ...noArrowUp,
    {
      name: 'no-room-cycle',
      severity: 'error',
      comment:
        'No two rooms (src/<room>/, machines/) import each other, even through other rooms: each answers its own question. ' +
        'The same inside src/gepa/: core/ (the vocabulary and data), strategies/, proposer/ and search/ (the loop) import down only.',
      scope: 'folder',
      from: { path: '^(src/[^/]+|src/gepa/[^/]+|machines)$' },
      to: { circular: true },
    },
  ],
  // The command (src/cli/, the top floor) is left out too: it starts runs through the machines, and as
  // a folder under src/ it would make the folder src look like it imported them. Nothing imports the
  // command but src/cli.ts (.dependency-cruiser.cjs, command-only-from-its-entry), so no cycle can pass it.
  options: { ...options, exclude: { path: '^src/((index|cli)\\.ts$|entries/|cli/)' } },
};
// Not enumerable: dependency-cruiser refuses a config with keys of its own. For the test.
Object.defineProperty(module.exports, 'FLOORS', { value: FLOORS });
