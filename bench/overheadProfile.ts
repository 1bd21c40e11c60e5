// One overhead workload run again and again, for `node --cpu-prof` (or a quick CPU-time figure):
// the keyword or demo task, zero-latency calls, W = 16, 20,000 metric calls, as bench/overhead.ts.
// `--count`: one more run, inspected: XState events and microsteps a proposal, by actor and kind.
// `--alloc`: one more run, the bytes it allocates (allocatedBytes.ts: a figure that, unlike CPU
// time, does not move with the machine's load).
//
//   node --cpu-prof --cpu-prof-dir DIR --import tsx bench/overheadProfile.ts [--schedule async16|8x1] [--valset 20] [--runs 5] [--warmups 2] [--task keyword] [--count] [--alloc]
import { optimize } from '../src/index.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import type { Schedule } from '../src/settingValues.js';
import { allocatedBytes } from './allocatedBytes.js';
import { benchArgs } from './cliArgs.js';
import { createKeywordTask } from './keywordTask.js';

const { flag } = benchArgs();
const count = process.argv.includes('--count');
const alloc = process.argv.includes('--alloc');
const valsetSize = Number(flag('--valset', '20'));
const runs = Number(flag('--runs', '5'));
const warmups = Number(flag('--warmups', '2'));
const task = flag('--task', 'keyword');
const schedules: Record<string, Schedule> = { async16: { kind: 'async', inFlight: 16 }, '8x1': { kind: 'batched', parents: 8, perParent: 1 } };
const schedule = schedules[flag('--schedule', 'async16')];
if (!schedule) throw new Error('--schedule async16 | 8x1');
const parts =
  task === 'keyword'
    ? createKeywordTask(200, valsetSize)
    : (() => {
        const demo = createDemoTask({ seed: 0, trainSize: 200, valSize: valsetSize, testSize: 10 });
        return { seedCandidate: demo.seedCandidate, trainset: demo.trainset, valset: demo.valset, adapter: demo.adapter, reflectionLm: demo.reflectionLm };
      })();
const run = (inspect?: (event: unknown) => void) => optimize({ ...parts, schedule, workers: 16, maxMetricCalls: 20_000, ...(inspect ? { inspect } : {}) } as Parameters<typeof optimize>[0]);
for (let i = 0; i < warmups; i++) await run();
const seconds: number[] = [];
for (let i = 0; i < runs; i++) {
  const start = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(start);
  seconds.push((used.user + used.system) / 1e6);
  if (i === runs - 1) process.stderr.write(`${result.metricCalls} calls, ${result.proposals.length} proposals\n`);
}
// After the timed runs: the sampler slows a run down.
if (alloc) process.stderr.write(`allocated a run: ${((await allocatedBytes(() => run())).bytes / 1e6).toFixed(1)} MB\n`);
if (count) await countSteps();

/** One run inspected: XState events (what reached each kind of actor) and microsteps, a proposal. */
async function countSteps(): Promise<void> {
  const counts = new Map<string, number>();
  const tally = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  // A provided actor's key ('proposer'), or a machine's id ('optimizer'): as the report names them.
  const logic = (ref: { src?: unknown }) => (typeof ref.src === 'string' ? ref.src : ((ref.src as { id?: string } | undefined)?.id ?? '?'));
  const result = await run((raw) => {
    const e = raw as { type: string; actorRef: { src?: unknown }; event: { type: string } };
    if (e.type === '@xstate.event') tally(`event     ${logic(e.actorRef)} <- ${e.event.type}`);
    else if (e.type === '@xstate.microstep') tally(`microstep ${logic(e.actorRef)} on ${e.event.type}`);
  });
  const n = result.proposals.length;
  const perProposal = (kind: string) => [...counts].filter(([k]) => k.startsWith(kind)).reduce((sum, [, v]) => sum + v, 0) / n;
  const lines = [...counts].filter(([, v]) => v / n >= 0.005).sort((a, b) => b[1] - a[1]);
  process.stderr.write(`${n} proposals; a proposal: ${perProposal('event').toFixed(2)} events, ${perProposal('microstep').toFixed(2)} microsteps\n`);
  for (const [k, v] of lines) process.stderr.write(`  ${k.padEnd(56)} ${(v / n).toFixed(2)}\n`);
}
if (runs > 0) {
  const best = Math.min(...seconds);
  process.stderr.write(`best ${best.toFixed(3)} s CPU: ${Math.round(20_000 / best)} calls/s (runs ${seconds.map((s) => s.toFixed(3)).join(' ')})\n`);
}
