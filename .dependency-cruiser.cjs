// The architecture check (`npm run arch`, part of `npm test`): the rules that keep each room of
// src/ answering its own question. See src/README.md for the rooms.
/**
 * The house: the rooms of src/ and machines/ on floors, top to bottom, as src/README.md draws
 * them. An import goes down or sideways, never up ('no-arrow-up'); sideways arrows never close a
 * loop ('no-room-cycle', in .dependency-cruiser-rooms.cjs). The entry points (src/index.ts,
 * src/cli.ts) stand above the house, the helpers at the top of src/ below it.
 */
const FLOORS = [
  ['cli'],
  ['machines', 'report'],
  ['run'],
  ['storage'],
  ['config', 'adapters', 'telemetry', 'worker', 'demo'],
  ['evaluation'],
  ['executors'],
  ['gepa', 'budget', 'lm', 'runtimeModel'],
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

/** Node built-ins that reach outside the process: files, network, processes. */
const IO = '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|os|dgram|dns|tls|worker_threads|readline|cluster)$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle anywhere, type imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'gepa-is-pure',
      severity: 'error',
      comment: 'src/gepa is the algorithm: no XState, no I/O, and none of the rooms that do run things.',
      from: { path: '^src/gepa/' },
      to: { path: ['^node_modules/xstate/', IO, '^src/(budget|evaluation|executors|storage|config|lm|report|runtimeModel|adapters|cli|demo|worker)/', '^machines/'] },
    },
    {
      name: 'domain-knows-no-xstate',
      severity: 'error',
      comment: 'The domain in src/ knows nothing of XState; the machines orchestrate it.',
      from: { path: '^src/' },
      to: { path: '^node_modules/xstate/' },
    },
    {
      name: 'machines-only-from-entry-points',
      severity: 'error',
      comment: 'src/ reaches the machines only through its entry points (src/index.ts, src/cli.ts).',
      from: { path: '^src/', pathNot: '^src/(index|cli)\\.ts$' },
      to: { path: '^machines/' },
    },
    {
      name: 'config-only-before-the-run',
      severity: 'error',
      comment:
        'Validation (src/config/) is over once the run is assembled (src/run/): the machines run a prepared run, ' +
        'and executors get their options from it. So neither executors/ nor machines/ imports config/.',
      from: { path: ['^src/executors/', '^machines/'] },
      to: { path: '^src/config/' },
    },
    ...noArrowUp,
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'Every module in src/ and machines/ is used by something.',
      from: { orphan: true, path: '^(src|machines)/', pathNot: ['\\.d\\.ts$', '^src/(index|cli)\\.ts$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a cycle of types is still a cycle for a reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
