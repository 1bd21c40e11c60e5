// Where an async run's quality goes, from its proposal records: how stale children are when
// judged, how many pass the minibatch gate, how rebases go (made, contained, passed), how many
// children duplicate a pool member, how many joined candidates set a new best or fell below
// their own parent, and (on the hotel task) how many facts the best prompt states.
//
//   npx tsx bench/asyncAnatomy.ts [--seeds 24] [--task hotel] <variant...>    (variants: bench/mechanisms.ts list)
import { parseFactPrompt } from '../src/demo/hotel/factPrompt.js';
import { splitSentences } from '../src/demo/promptRules.js';
import { benchRun, type RunFigures } from './benchTask.js';
import { benchArgs } from './cliArgs.js';
import { VARIANTS, WORKLOAD } from './mechanismVariants.js';
import { mean } from './table.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';

const { flag, positional: names } = benchArgs();
const seeds = Number(flag('--seeds', '24'));
const task = flag('--task', 'hotel');

/** One run's figures, each a count per run unless named a share or a mean. */
function anatomy(r: RunFigures, valScores: readonly number[], parents: readonly (readonly number[])[]): Record<string, number> {
  const reflective = r.proposals.filter((p) => p.kind === 'reflective');
  const judged = reflective.filter((p) => p.childMinibatchSum !== undefined);
  const rebased = judged.filter((p) => p.rebasedFrom !== undefined);
  const has = (p: { reason: string }, start: string) => p.reason.startsWith(start);
  const joined = r.proposals.filter((p) => p.outcome === 'accepted' && p.candidateIndex !== undefined);
  let runningBest = valScores[0] ?? 0;
  let newBest = 0;
  for (let i = 1; i < valScores.length; i++) {
    if ((valScores[i] ?? 0) > runningBest) newBest++;
    runningBest = Math.max(runningBest, valScores[i] ?? 0);
  }
  const belowParent = joined.filter((p) => (valScores[p.candidateIndex as number] ?? 0) < (valScores[parents[p.candidateIndex as number]?.[0] as number] ?? 0)).length;
  const texts = Object.values(r.bestCandidate).join(' ');
  return {
    launched: reflective.length,
    skipped: reflective.filter((p) => p.outcome === 'skipped').length,
    judged: judged.length,
    'stale at fold (mean)': mean(judged.map((p) => p.staleness)),
    'share stale ≥ 4': judged.filter((p) => p.staleness >= 4).length / Math.max(1, judged.length),
    'passed first gate': judged.filter((p) => p.rebasedFrom !== undefined || !has(p, 'failed acceptance')).length,
    rebased: rebased.length,
    'rebase gate passed': rebased.filter((p) => !has(p, 'failed acceptance')).length,
    contained: reflective.filter((p) => has(p, 'its edit is already in')).length,
    'already in pool': reflective.filter((p) => has(p, 'child is already in the pool')).length,
    joined: joined.length,
    'new best': newBest,
    'joined below parent': belowParent,
    'best sentences': splitSentences(texts).length,
    ...(task === 'hotel' ? { 'best facts': parseFactPrompt(texts).stated.size } : {}),
    'best val': r.bestValScore,
    test: r.testScore,
  };
}

for (const name of names) {
  const v = VARIANTS[name];
  if (!v) throw new Error(`unknown variant '${name}'; list them with: npx tsx bench/mechanisms.ts list`);
  const rows: Array<Record<string, number>> = [];
  for (let seed = 0; seed < seeds; seed++) {
    const valScores: number[] = [];
    const parents: number[][] = [[]];
    const onEvent = (e: RunEvent) => {
      if (e.type !== 'candidate.accepted') return;
      valScores[e.index] = e.valScore;
      parents[e.index] = e.parents;
    };
    const r = await benchRun({ label: name, schedule: v.schedule, options: { ...v.options, onEvent } }, seed, { ...WORKLOAD, task });
    valScores[0] = r.seedValScore;
    rows.push(anatomy(r, valScores, parents));
  }
  const keys = Object.keys(rows[0] ?? {});
  console.log(`${task} ${name} (${seeds} seeds): ${keys.map((k) => `${k} ${mean(rows.map((row) => row[k] as number)).toFixed(k.includes('share') || k.includes('val') || k === 'test' ? 3 : 1)}`).join(', ')}`);
}
