// The orchestration overhead of two versions of the code in one process, run after run in turn,
// so that a change's gain is not read across invocations (on this VM those spread by up to
// 1.5x, and its CPU speed wanders by ~15% within one). "before" is another checkout of the
// repository (e.g. `git archive <commit> | tar -x -C DIR`, with DIR/node_modules linking to this
// one's); "after" is this one. Same workloads as `bench/run.ts --part overhead` (zero-latency
// adapter and reflection model, 20,000 metric calls, W = 16), CPU time of the process.
//
// `--alloc`: after the timed rounds, one more run of each, the bytes it allocates (allocatedBytes.ts).
//
//   npx tsx bench/overheadBeforeAfter.ts --before DIR [--rounds 5] [--warmups 2] [--valsets 20,100] [--tasks keyword,demo] [--alloc]
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { allocatedBytes } from './allocatedBytes.js';
import { benchArgs } from './cliArgs.js';
import { median } from './table.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import type { Schedule } from '../src/settingValues.js';

type Task = 'keyword' | 'demo';
type Run = () => Promise<OptimizeResult>;

/** One version's optimize() on a task, loaded from its own checkout. */
async function runnerFor(root: URL, task: Task, valsetSize: number, schedule: Schedule): Promise<Run> {
  const { optimize } = (await import(new URL('src/index.ts', root).href)) as typeof import('../src/index.js');
  let taskParts: object;
  if (task === 'keyword') {
    const { createKeywordTask } = (await import(new URL('bench/keywordTask.ts', root).href)) as typeof import('./keywordTask.js');
    taskParts = createKeywordTask(200, valsetSize);
  } else {
    const { createDemoTask } = (await import(new URL('src/demo/demoTask.ts', root).href)) as typeof import('../src/demo/demoTask.js');
    const demo = createDemoTask({ seed: 0, trainSize: 200, valSize: valsetSize, testSize: 10 });
    taskParts = { seedCandidate: demo.seedCandidate, trainset: demo.trainset, valset: demo.valset, adapter: demo.adapter, reflectionLm: demo.reflectionLm };
  }
  return () => optimize({ ...taskParts, schedule, workers: 16, maxMetricCalls: 20_000 } as Parameters<typeof optimize>[0]);
}

async function cpuSeconds(run: Run): Promise<{ seconds: number; result: OptimizeResult }> {
  const start = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(start);
  return { seconds: (used.user + used.system) / 1e6, result };
}

const { flag } = benchArgs();
const beforeDir = flag('--before', '');
if (beforeDir === '') throw new Error('--before DIR: a checkout of the code to compare with');
const roots = { before: pathToFileURL(`${resolve(beforeDir)}/`), after: new URL('../', import.meta.url) };
const rounds = Number(flag('--rounds', '5'));
const warmups = Number(flag('--warmups', '2'));
const valsets = flag('--valsets', '20,100').split(',').map(Number);
const tasks = flag('--tasks', 'keyword,demo').split(',') as Task[];
const alloc = process.argv.includes('--alloc');
const schedules: Array<{ label: string; schedule: Schedule }> = [
  { label: 'async 16', schedule: { kind: 'async', inFlight: 16 } },
  { label: '8x1', schedule: { kind: 'batched', parents: 8, perParent: 1 } },
];

const rows: string[] = [];
const allocLines: string[] = [];
const rate = (x: number) => Math.round(x).toLocaleString('en-US');
for (const task of tasks) {
  for (const valsetSize of valsets) {
    for (const { label, schedule } of schedules) {
      const runners = { before: await runnerFor(roots.before, task, valsetSize, schedule), after: await runnerFor(roots.after, task, valsetSize, schedule) };
      for (let i = 0; i < warmups; i++) for (const run of Object.values(runners)) await run();
      const seconds = { before: [] as number[], after: [] as number[] };
      const last: Partial<Record<'before' | 'after', OptimizeResult>> = {};
      // In turn, so that a slow spell of the machine falls on both.
      for (let r = 0; r < rounds; r++) {
        for (const version of ['before', 'after'] as const) {
          const { seconds: s, result } = await cpuSeconds(runners[version]);
          seconds[version].push(s);
          last[version] = result;
        }
      }
      const cells = (['before', 'after'] as const).map((version) => {
        const result = last[version] as OptimizeResult;
        const best = Math.min(...seconds[version]);
        const perProposalMs = (1000 * best) / result.proposals.length;
        return { calls: result.metricCalls, proposals: result.proposals.length, best: result.metricCalls / best, median: result.metricCalls / median(seconds[version]), perProposalMs };
      });
      const [b, a] = cells as [(typeof cells)[0], (typeof cells)[0]];
      const row = `| ${task} | ${label} | ${valsetSize} | ${b.proposals} / ${a.proposals} | ${rate(b.best)} | **${rate(a.best)}** | ${rate(b.median)} | ${rate(a.median)} | ${b.perProposalMs.toFixed(3)} | **${a.perProposalMs.toFixed(3)}** | ${(b.perProposalMs / a.perProposalMs).toFixed(2)}x |`;
      process.stderr.write(`${row}\n`);
      rows.push(row);
      if (alloc) {
        const mb = async (run: Run) => ((await allocatedBytes(run)).bytes / 1e6).toFixed(1);
        const line = `${task} | ${label} | valset ${valsetSize}: allocated a run ${await mb(runners.before)} MB before, ${await mb(runners.after)} MB after`;
        process.stderr.write(`${line}\n`);
        allocLines.push(line);
      }
    }
  }
}
console.log(`\n## Orchestration overhead before and after, one process, runs in turn (best of ${rounds}; CPU time)\n`);
console.log('| task | schedule | valset | proposals before / after | calls/s before, best | calls/s after, best | before, median | after, median | ms CPU a proposal before | after | gain |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
if (allocLines.length > 0) console.log(`\n${allocLines.join('\n')}`);
