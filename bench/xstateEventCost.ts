// What one event to an XState machine costs, feature by feature, on machines built for the
// question (not the run's): a one-state machine with one plain action; a machine shaped like the
// optimizer (a compound state, sixteen children, guarded handlers at two levels, two invoked
// callback actors); the same with its eventless transitions (two false guards, re-checked after
// every step); an empty enqueueActions; eight run events emitted with no listener; one request
// sent to a callback actor (its step included); a child stopped and another spawned (a two-state
// machine with a twenty-field input). CPU time an event, the best of three blocks after a
// warm-up block. The figures explain the run's (bench/README.md, "round 4").
//
//   npx tsx bench/xstateEventCost.ts [--events 50000]
import { createActor, createMachine, fromCallback, setup, type AnyActorRef } from 'xstate';
import { benchArgs } from './cliArgs.js';

const { flag } = benchArgs();
const events = Number(flag('--events', '50000'));

const service = fromCallback(() => () => {});
const child = createMachine({ id: 'child', context: ({ input }: { input: Record<string, number> }) => ({ ...input }), initial: 'a', states: { a: { on: { go: 'b' } }, b: {} } });
const childInput = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`field${i}`, i]));

const variants = {
  'one-state machine, one plain action': 'plain',
  'optimizer-shaped machine, one plain action, no eventless transitions': 'shaped',
  '+ eventless transitions (two false guards)': 'always',
  '+ an empty enqueueActions instead': 'enqueue',
  '+ eight events emitted (no listener)': 'emits',
  '+ one request sent to a callback actor': 'send',
  '+ a child stopped and another spawned': 'spawn',
} as const;
type Variant = (typeof variants)[keyof typeof variants];

function machineFor(variant: Variant) {
  let spawned = 0;
  const base = setup({
    types: { emitted: {} as { type: 'run.event'; i: number } },
    actors: { service, child },
    guards: { hasStopReason: () => false, idle: () => false, outOfTurn: () => false },
    actions: { plain: () => {} },
  });
  const action =
    variant === 'enqueue'
      ? base.enqueueActions(() => {})
      : variant === 'emits'
        ? base.enqueueActions(({ enqueue }) => {
            for (let i = 0; i < 8; i++) enqueue.emit({ type: 'run.event', i });
          })
        : variant === 'send'
          ? base.enqueueActions(({ enqueue, system }) => enqueue.sendTo(system.get('service') as AnyActorRef, { type: 'request' }))
          : variant === 'spawn'
            ? base.enqueueActions(({ enqueue }) => {
                const id = `proposer-${spawned++ % 4}`;
                enqueue.stopChild(id);
                enqueue.spawnChild('child', { id, systemId: `proposal-${spawned}`, input: childInput });
              })
            : 'plain';
  if (variant === 'plain') return base.createMachine({ on: { evaluated: { actions: 'plain' } } });
  return base.createMachine({
    on: { stop: { actions: 'plain' }, 'dollars.exhausted': { actions: 'plain' } },
    invoke: [
      { src: 'service', id: 'evaluator', systemId: 'service' },
      { src: 'service', id: 'stopSignals' },
    ],
    entry: base.enqueueActions(({ enqueue }) => {
      for (let i = 0; i < 16; i++) enqueue.spawnChild('service', { id: `proposer-${i + 4}` });
    }),
    initial: 'flowing',
    states: {
      flowing: {
        on: {
          evaluated: { actions: action },
          'proposal.judged': [{ guard: 'outOfTurn', actions: 'plain' }, { actions: action }],
          'proposal.finished': [{ guard: 'outOfTurn', actions: 'plain' }, { actions: action }],
        },
        ...(variant === 'shaped'
          ? {}
          : {
              always: [
                { guard: 'hasStopReason', target: 'draining' },
                { guard: 'idle', target: 'done' },
              ],
            }),
      },
      draining: {},
      done: { type: 'final' },
    },
  });
}

const actors = Object.values(variants).map((variant) => createActor(machineFor(variant)).start());
const best = actors.map(() => Infinity);
const event = { type: 'evaluated' } as const;
// Block 0 warms up; the blocks go round the variants in turn, so a slow spell falls on all.
for (let block = 0; block < 4; block++) {
  actors.forEach((actor, i) => {
    const start = process.cpuUsage();
    for (let n = 0; n < events; n++) actor.send(event);
    const used = process.cpuUsage(start);
    if (block > 0) best[i] = Math.min(best[i] as number, (used.user + used.system) / events);
  });
}
console.log(`| machine (XState ${await xstateVersion()}) | us CPU an event (best of 3 x ${events.toLocaleString('en-US')}) |`);
console.log('|---|---:|');
Object.keys(variants).forEach((label, i) => console.log(`| ${label} | ${(best[i] as number).toFixed(2)} |`));

async function xstateVersion(): Promise<string> {
  const { createRequire } = await import('node:module');
  return (createRequire(import.meta.url)('xstate/package.json') as { version: string }).version;
}
