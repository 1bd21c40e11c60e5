// The architecture check (`npm run arch`, part of `npm test`): the rules that keep each room of
// src/ answering its own question, module by module. See src/README.md for the rooms; the rules
// between rooms (the floors of the house, no cycle) are in .dependency-cruiser-rooms.cjs.
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
      comment: 'src/gepa is the algorithm: no XState, no I/O, and none of the rooms that do run things (src/budget, pure, answers its "may I spend?").',
      from: { path: '^src/(gepa|budget)/' },
      to: { path: ['^node_modules/xstate/', IO, '^src/(evaluation|executors|storage|config|lm|report|runtimeModel|adapters|cli|demo|worker)/', '^machines/'] },
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
      comment: 'src/ reaches the machines only from its entry points (src/index.ts, src/entries/, src/cli.ts) and the command (src/cli/), which stands above them.',
      from: { path: '^src/', pathNot: ['^src/(index|cli)\\.ts$', '^src/entries/', '^src/cli/'] },
      to: { path: '^machines/' },
    },
    {
      name: 'config-only-before-the-run',
      severity: 'error',
      comment:
        'Validation (src/config/) is over once the run is assembled (src/run/): the machines run a prepared run, ' +
        'and executors get their options from it. So neither executors/ nor machines/ imports config/.',
      from: { path: ['^src/executors/', '^machines/'] },
      to: { path: '^src/config/', pathNot: '^src/config/optimizeConfig\\.ts$' },
    },
    {
      name: 'config-type-only-after-the-run',
      severity: 'error',
      comment:
        'What a run is given (the OptimizeConfig type, src/config/optimizeConfig.ts) may be named after validation, ' +
        'imported directly rather than through types.ts, which hid the arrow: a type-only import, never a value.',
      from: { path: ['^src/executors/', '^machines/'] },
      to: { path: '^src/config/optimizeConfig\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'assembly-only-at-the-edge',
      severity: 'error',
      comment:
        'A run is assembled (src/run/prepareRun.ts: executors with BullMQ, models, telemetry) at the edges only: ' +
        'machines/optimize.ts and optimizeAnything.ts (the two public entries) and the CLI. The machines run a PreparedRun (src/run/preparedRun.ts, types only) and ' +
        'reach the assembly through no module at all.',
      from: { path: '^machines/', pathNot: '^machines/(optimize|optimizeAnything)\\.ts$' },
      to: { path: '^src/run/prepareRun\\.ts$', reachable: true },
    },
    {
      name: 'no-entry-imported',
      severity: 'error',
      comment:
        'The package entries (src/index.ts, src/entries/) are for users: no module of ours imports one. A room imports ' +
        'a thing from the room that defines it, so an arrow up or a cycle cannot hide behind a re-export.',
      from: { path: '^(src|machines)/' },
      to: { path: ['^src/index\\.ts$', '^src/entries/'] },
    },
    {
      name: 'command-only-from-its-entry',
      severity: 'error',
      comment: 'The command (src/cli/) is the top floor: only its entry, src/cli.ts, imports it.',
      from: { path: '^(src|machines)/', pathNot: ['^src/cli\\.ts$', '^src/cli/'] },
      to: { path: '^src/cli/' },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'Every module in src/ and machines/ is used by something.',
      from: { orphan: true, path: '^(src|machines)/', pathNot: ['\\.d\\.ts$', '^src/(index|cli)\\.ts$', '^src/entries/'] },
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
