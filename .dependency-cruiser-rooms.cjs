// The second half of `npm run arch`: no cycle between rooms (folders), however long. It runs on
// its own because the entry points must be left out: src/index.ts imports the machines and every
// room, so with it the folder src/ would close a loop through every room that imports types.ts.
const { options } = require('./.dependency-cruiser.cjs');

module.exports = {
  forbidden: [
    {
      name: 'no-room-cycle',
      severity: 'error',
      comment:
        'No two rooms (src/<room>/, machines/) import each other, even through other rooms: each answers its own question. ' +
        'The folders inside src/gepa/ mirror the reference implementation and are left to it.',
      scope: 'folder',
      from: { path: '^(src/[^/]+|machines)$' },
      to: { circular: true },
    },
  ],
  options: { ...options, exclude: { path: '^src/(index|cli)\\.ts$' } },
};
