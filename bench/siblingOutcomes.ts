// Several children per parent (issue 47, round 4): how a group's proposals end. For async K x N
// with gates and auto's 'combined' on a bench task at 128 slots x 1,500 calls, per seed run: the
// groups that reflected (their first proposal not skipped), those with at least one accepted
// child, the first proposals accepted, the siblings accepted, and the siblings rebased onto their
// own group's first child (the three-way merge composing two edits of one parent evaluation) and
// of those accepted. Simulated time; the figures of bench/README.md's round 4 (H2, H3).
//
//   npx tsx bench/siblingOutcomes.ts [--task bookkeeping] [--k 12] [--n 2] [--seeds 8]
import { benchArgs } from './cliArgs.js';
import { benchRun } from './benchTask.js';
import { parseConfiguration, workloadFor } from './timeToQualityRuns.js';
import { AUTO_COMBINED_LIMITS, combinedReflection } from '../src/gepa/reflection/combinedFailures.js';

const { flag } = benchArgs();
const task = flag('--task', 'bookkeeping');
const k = Number(flag('--k', '12'));
const n = Number(flag('--n', '2'));
const seeds = Number(flag('--seeds', '8'));
const workload = workloadFor(parseConfiguration('w128-b1500'), task, false);
const counts = { groups: 0, withAccepted: 0, firstsAccepted: 0, siblings: 0, siblingsAccepted: 0, ontoFirst: 0, ontoFirstAccepted: 0 };
for (let seed = 0; seed < seeds; seed++) {
  const setting = { label: `async ${k}x${n} gates auto-combined`, schedule: { kind: 'async' as const, inFlight: k, perParent: n, speculate: 'rebase-gate' as const }, options: { reflectionStrategy: combinedReflection(AUTO_COMBINED_LIMITS) } };
  const { proposals } = await benchRun(setting, seed, workload);
  for (const first of proposals.filter((p) => p.kind === 'reflective' && p.siblingOf === undefined && p.outcome !== 'skipped')) {
    const siblings = proposals.filter((p) => p.siblingOf === first.step);
    if (siblings.length === 0) continue;
    counts.groups++;
    if ([first, ...siblings].some((p) => p.outcome === 'accepted')) counts.withAccepted++;
    if (first.outcome === 'accepted') counts.firstsAccepted++;
    for (const s of siblings) {
      counts.siblings++;
      if (s.outcome === 'accepted') counts.siblingsAccepted++;
      // Rebased onto the child its group's first proposal added to the pool.
      if (s.rebasedFrom !== undefined && first.candidateIndex !== undefined && s.parents[0] === first.candidateIndex) {
        counts.ontoFirst++;
        if (s.outcome === 'accepted') counts.ontoFirstAccepted++;
      }
    }
  }
}
const share = (a: number, b: number) => `${a} of ${b} (${b === 0 ? 0 : Math.round((100 * a) / b)}%)`;
console.log(`${task}, async ${k}x${n} with gates and auto's 'combined', 128 slots x 1,500 calls, seeds 0-${seeds - 1}:`);
console.log(`  groups that reflected: ${counts.groups}; with an accepted child ${share(counts.withAccepted, counts.groups)}; first proposal accepted ${share(counts.firstsAccepted, counts.groups)}`);
console.log(`  siblings accepted ${share(counts.siblingsAccepted, counts.siblings)}; rebased onto their first's child ${share(counts.ontoFirst, counts.siblings)}, of those accepted ${share(counts.ontoFirstAccepted, counts.ontoFirst)}`);
