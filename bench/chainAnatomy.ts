// Where the time of an async run with children decided in launch order goes: at each instant,
// what the oldest proposal in flight (the head of the decision chain) is doing, and whether
// some younger child is done with its work and idle (waiting). Seeds 0-7 of the real-time
// workload in simulated time (bench/mechanismVariants.ts's WORKLOAD), async 8.
//
//   npx tsx bench/chainAnatomy.ts <demo|multistep|hotel> [rebaseWait] [heldSlot] [speculate] [maxMetricCalls, default 1500]
import { SimulatedClock } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { optimize, type RunEvent, type Schedule } from '../src/index.js';
import type { HeldSlot, RebaseWait, Speculation } from '../src/settingValues.js';
import { benchTask } from './tasks.js';
const task = process.argv[2] ?? 'hotel';
// Checked by optimize's config schema, which names a value it does not know.
const wait = (process.argv[3] ?? 'launched-before') as RebaseWait;
const heldSlot = (process.argv[4] ?? 'keep') as HeldSlot;
const speculate = (process.argv[5] ?? 'none') as Speculation;
const budget = Number(process.argv[6] ?? 1500);
const totals: Record<string, number> = {};
let wallSum = 0;
for (let seed = 0; seed < 8; seed++) {
  const clock = steppingClock(new SimulatedClock());
  const t = benchTask(task)({ seed, trainSize: 60, valSize: 30, testSize: 60, metricCallMs: 20, reflectionMs: 100, jitter: [0.5, 1.5], clock });
  const phase = new Map<string, string>();
  let last = 0;
  const tick = () => {
    const now = clock.now();
    const dt = now - last;
    last = now;
    if (dt <= 0 || phase.size === 0) return;
    const keys = [...phase.keys()].sort((a, b) => Number(a.split('-')[0]) - Number(b.split('-')[0]));
    const head = phase.get(keys[0] as string) as string;
    const idle = keys.slice(1).some((k) => phase.get(k) === 'judged');
    const key = `head ${head}${idle ? ', a younger child idle' : ''}`;
    totals[key] = (totals[key] ?? 0) + dt;
  };
  const onEvent = (e: RunEvent) => {
    if (!('step' in e) || !('task' in e)) return;
    tick();
    const id = `${e.step}-${e.task}`;
    if (e.type === 'proposal.started') phase.set(id, 'before its verdict');
    else if (e.type === 'evaluation.ended' && e.target === 'child') phase.set(id, 'judged');
    else if (e.type === 'evaluation.started' && e.target === 'child' && phase.get(id) === 'judged') phase.set(id, 'on a rebase gate');
    else if (e.type === 'evaluation.started' && e.target === 'valset') phase.set(id, 'on its valset');
    else if (e.type === 'proposal.ended') phase.delete(id);
  };
  const schedule: Schedule = { kind: "async", inFlight: 8, rebase: "best", rebaseGate: "where-it-helped", rebaseWait: wait, heldSlot, speculate };
  const r = await runOnSimulatedClock(clock, optimize({ seedCandidate: t.seedCandidate, trainset: t.trainset, valset: t.valset, adapter: t.adapter, reflectionLm: t.reflectionLm, schedule, workers: 16, maxMetricCalls: budget, seed, clock, slotPolicy: 'finish-first', tieOrder: 'oldest-survives', stepMinibatches: 'fresh', onEvent }));
  wallSum += r.elapsedMs;
}
console.log(`${task} ${wait} ${heldSlot} ${speculate} ${budget} calls: mean wall ${(wallSum / 8).toFixed(0)} ms`);
for (const [k, v] of Object.entries(totals).sort((a, b) => b[1] - a[1])) console.log(`  ${(v / wallSum * 100).toFixed(1)}%  ${k}`);
