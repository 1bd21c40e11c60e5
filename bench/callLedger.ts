// Where a run's metric calls go, by kind of request (seed, parent minibatch, child minibatch and
// rebase gate, valset), how many candidates joined, and what a rebase gate paid per candidate.
// Assumes the variants' minibatch of 3.
//   npx tsx bench/callLedger.ts --seeds 12 --task demo 'single' 'async 8 rebase best'
import type { SlotInterval } from '../src/evaluation/workerSlots.js';
import { benchRun } from './benchTask.js';
import { VARIANTS, WORKLOAD } from './mechanismVariants.js';
import { benchArgs } from './cliArgs.js';

const { flag, positional: names } = benchArgs();
const seeds = Number(flag('--seeds', '12'));
const task = flag('--task', 'demo');

for (const name of names) {
  const v = VARIANTS[name];
  if (!v) throw new Error(`unknown variant ${name}`);
  const totals: Record<string, number> = {};
  let joined = 0, depth = 0, rebased = 0, judged = 0, val = 0;
  for (let seed = 0; seed < seeds; seed++) {
    const kinds: Record<string, number> = {};
    const onSlotInterval = (s: SlotInterval) => { kinds[s.kind] = (kinds[s.kind] ?? 0) + 1; };
    const r = await benchRun({ label: name, schedule: v.schedule, options: { ...v.options, onSlotInterval } as never }, seed, { ...WORKLOAD, task });
    for (const [k, n] of Object.entries(kinds)) totals[k] = (totals[k] ?? 0) + n;
    joined += r.candidates - 1;
    val += r.bestValScore;
    judged += r.proposals.filter((p) => p.childMinibatchSum !== undefined).length;
    rebased += r.proposals.filter((p) => p.rebasedFrom !== undefined).length;
    depth += r.bestLineageDepth;
  }
  const per = (n: number) => (n / seeds).toFixed(1);
  // A judged child paid b calls; what is left of the 'child' calls went to the rebase gates (two candidates each).
  const gateCalls = (totals.child ?? 0) - 3 * judged;
  const gate = rebased === 0 ? '' : `; ${per(rebased)} rebases, ${(gateCalls / 2 / rebased).toFixed(2)} paid calls per candidate per gate`;
  console.log(`${task} ${name}: val ${(val / seeds).toFixed(3)}; calls per run ${Object.entries(totals).map(([k, n]) => `${k} ${per(n)}`).join(', ')}; joined ${per(joined)}, best depth ${per(depth)}${gate}`);
}
