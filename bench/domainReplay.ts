// The domain's work for one proposal's end, apart from XState and the evaluation: an async 16
// keyword run (valset 20) is stopped at the first proposal that ends at or after `--at` calls
// (skipped on its parent, or with `--kind granted` one whose child was evaluated on the valset),
// its RunState is kept as plain values (toJSON) with the arguments of that end's moments (finish,
// foldOne, releaseHeld, prefetchGates, launch), and the moments are replayed again and again on
// copies of it, by two versions of the code in one process, in turn: each moment's microseconds
// (wall time, a moment being a few), the mean of a batch, the least over batches (a figure that
// load moves much less than a whole run's). "before"
// is another checkout (as for overheadBeforeAfter.ts); each version runs the same run first, so
// both are warmed alike. The pool is shared by the copies (it only grows by copies), and the
// records of ended proposals are left out (they are only appended to).
//
//   npx tsx bench/domainReplay.ts --before DIR [--at 25000] [--kind skipped|granted] [--rounds 30] [--batch 300]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchArgs } from './cliArgs.js';
import type { RunState, RunStateData } from '../src/gepa/search/runState.js';

const { flag } = benchArgs();
const at = Number(flag('--at', '25000'));
const kind = flag('--kind', 'skipped');
const rounds = Number(flag('--rounds', '30'));
const batch = Number(flag('--batch', '300'));
const beforeDir = flag('--before', '');
if (beforeDir === '') throw new Error('--before DIR: a checkout of the version to compare with');
const MOMENTS = ['finish', 'foldOne', 'releaseHeld', 'prefetchGates', 'launch'] as const;
type Moment = (typeof MOMENTS)[number];
type Methods = Record<Moment, (...args: unknown[]) => unknown>;

interface Version {
  name: string;
  RunState: { prototype: Methods; fromJSON(data: RunStateData): RunState };
  run: () => Promise<unknown>;
}

async function versionAt(name: string, root: URL): Promise<Version> {
  const { optimize } = (await import(new URL('src/index.ts', root).href)) as typeof import('../src/index.js');
  const { createKeywordTask } = (await import(new URL('bench/keywordTask.ts', root).href)) as typeof import('./keywordTask.js');
  const { RunState } = (await import(new URL('src/gepa/search/runState.ts', root).href)) as { RunState: Version['RunState'] };
  const task = createKeywordTask(200, 20);
  const run = () => optimize({ ...task, schedule: { kind: 'async', inFlight: 16 }, workers: 16, maxMetricCalls: at + 2000 } as Parameters<typeof optimize>[0]);
  return { name, RunState, run };
}

interface Captured {
  data: RunStateData;
  args: Partial<Record<Moment, unknown[]>>;
}

/** One run of `version`, its moments wrapped: the state before the chosen proposal's end, and the arguments of that end's moments. */
async function capture(version: Version): Promise<Captured> {
  const proto = version.RunState.prototype;
  const original = Object.fromEntries(MOMENTS.map((m) => [m, proto[m]])) as Methods;
  let captured: Captured | undefined;
  let open = false;
  for (const m of MOMENTS) {
    proto[m] = function (this: RunState, ...args: unknown[]) {
      const report = args[0] as { outcome?: { status: string }; valset?: unknown };
      const chosen = kind === 'skipped' ? report.outcome?.status === 'skipped' : report.valset !== undefined;
      if (m === 'finish' && captured === undefined && this.ledger.spentCalls >= at && chosen) {
        captured = { data: JSON.parse(JSON.stringify(this)) as RunStateData, args: { finish: args } };
        open = true;
      } else if (open && m !== 'finish' && captured) captured.args[m] = args;
      // The end's moments come in this order, up to its launch; the next proposal's end closes them.
      if (m === 'launch' || (m === 'finish' && captured?.args.finish !== args)) open = false;
      return original[m].apply(this, args);
    };
  }
  await version.run();
  Object.assign(proto, original);
  if (!captured) throw new Error(`no proposal of kind ${kind} ended after ${at} calls`);
  return captured;
}

const after = await versionAt('after', pathToFileURL(resolve('.') + '/'));
const before = await versionAt('before', pathToFileURL(resolve(beforeDir) + '/'));
const { data, args } = await capture(after);
await before.run(); // the same warm-up for the other version
const poolData = data.search.pool;
const template = { ...data, search: { ...data.search, pool: undefined }, progress: { ...data.progress, records: [] } };
process.stdout.write(`captured ${(args.finish?.[0] as { id: string }).id} at ${at} calls: pool ${poolData.candidates.length}, in flight ${Object.keys(data.proposals).length}, moments ${Object.keys(args).join(', ')}\n`);

const pools = new Map<string, unknown>();
const least = new Map<string, number>();
for (let round = 0; round < rounds; round++) {
  for (const version of [before, after]) {
    if (!pools.has(version.name)) pools.set(version.name, structuredClone(poolData));
    const spent: Record<string, number> = {};
    for (let i = 0; i < batch; i++) {
      const state = version.RunState.fromJSON(structuredClone(template) as unknown as RunStateData) as unknown as Methods & RunState;
      state.search = { ...state.search, pool: pools.get(version.name) as RunState['search']['pool'] };
      for (const m of MOMENTS) {
        const a = args[m];
        if (!a) continue;
        const start = process.hrtime.bigint();
        state[m](...a);
        spent[m] = (spent[m] ?? 0) + Number(process.hrtime.bigint() - start) / 1000;
      }
    }
    let sum = 0;
    for (const m of MOMENTS) {
      const us = (spent[m] ?? 0) / batch;
      sum += us;
      least.set(`${version.name} ${m}`, Math.min(least.get(`${version.name} ${m}`) ?? Infinity, us));
    }
    least.set(`${version.name} sum`, Math.min(least.get(`${version.name} sum`) ?? Infinity, sum));
  }
}
for (const { name } of [before, after]) {
  process.stdout.write(`${name.padEnd(6)} ${[...MOMENTS, 'sum'].map((m) => `${m} ${(least.get(`${name} ${m}`) as number).toFixed(2)}`).join('  ')} us (least of ${rounds} batches of ${batch})\n`);
}
