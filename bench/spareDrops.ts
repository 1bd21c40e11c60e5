// Issue 39, the seventh round (bench/README.md, "A seventh round"): how much of the gates ahead a
// run drops with speculate 'rebase-gate-drop-unasked' or 'rebase-gate-idle'. Counts, per run, the
// spare calls queued, started (those promoted by a request that needed them included) and dropped
// unstarted, by wrapping WorkerSlots.runSpare in this process (the runtime reports no such count).
//
//   npx tsx bench/spareDrops.ts [--seeds 8] [--workers 16] <task>:<variant>...   (variants: bench/mechanismVariants.ts)
import { WorkerSlots } from '../src/evaluation/workerSlots.js';
import { benchRun } from './benchTask.js';
import { VARIANTS, WORKLOAD } from './mechanismVariants.js';
import { benchArgs } from './cliArgs.js';

const { flag, positional } = benchArgs();
const seeds = Number(flag('--seeds', '8'));
const workers = Number(flag('--workers', String(WORKLOAD.workers)));
const counts = { queued: 0, started: 0, promoted: 0 };
const runSpare = WorkerSlots.prototype.runSpare;
WorkerSlots.prototype.runSpare = function <T>(this: WorkerSlots, ...[kind, fn, signal, dropped, idleSlotsOnly]: Parameters<typeof runSpare<T>>) {
  counts.queued++;
  const spare = runSpare.call<WorkerSlots, Parameters<typeof runSpare<T>>, ReturnType<typeof runSpare<T>>>(this, kind, () => (counts.started++, fn()), signal, dropped, idleSlotsOnly);
  return {
    result: spare.result,
    promote: () => {
      const promoted = spare.promote();
      if (promoted) counts.promoted++;
      return promoted;
    },
  };
};

for (const [task = 'demo', variant = ''] of positional.map((a) => a.split(':'))) {
  const v = VARIANTS[variant];
  if (!v) throw new Error(`unknown variant '${variant}'`);
  Object.assign(counts, { queued: 0, started: 0, promoted: 0 });
  let calls = 0;
  for (let seed = 0; seed < seeds; seed++) calls += (await benchRun({ label: variant, schedule: v.schedule, ...(v.options ? { options: v.options } : {}) }, seed, { ...WORKLOAD, workers, task })).metricCalls;
  const per = (n: number) => (n / seeds).toFixed(1);
  console.log(`| ${task} | ${variant} | ${workers} | ${per(counts.queued)} | ${per(counts.started)} (${per(counts.promoted)} promoted) | ${per(counts.queued - counts.started)} | ${per(calls)} |`);
}
