// How much of the valset an accepted child is evaluated on. 'full' is GEPA's rule: all of it. A
// race evaluates it in chunks and stops early once it trails its parent on the examples seen so
// far by more than `margin` and has beaten the pool's best on none of them (so instance-front
// specialists always finish), as racing methods (irace) drop configurations that are clearly
// behind. A stopped child is not added to the pool: its valset scores would be partial. What the
// race saves buys more proposals at the same budget.
import { sum } from '../core/scores.js';

import type { ValsetPolicy } from '../../settingValues.js';

export type { ValsetPolicy };

/** What one child's race needs, fixed when its valset evaluation is granted. */
export interface ValsetRace {
  /** Valset positions in the order they are evaluated. */
  order: number[];
  chunk: number;
  margin: number;
  /** The parent's score on each valset position. */
  parentScores: number[];
  /** The pool's best score on each valset position. */
  bestScores: number[];
}

/**
 * The race for a child of `parentScores`, or null for a full evaluation. `offset` rotates where
 * the race starts, so that different children are not all judged on the same first chunk.
 */
export function planValsetRace(policy: ValsetPolicy, parentScores: readonly number[], bestScores: readonly number[], offset: number): ValsetRace | null {
  if (policy === 'full' || parentScores.length <= policy.chunk) return null;
  const size = parentScores.length;
  const start = ((offset % size) + size) % size;
  const order = Array.from({ length: size }, (_, k) => (start + k) % size);
  return { order, chunk: policy.chunk, margin: policy.margin, parentScores: [...parentScores], bestScores: [...bestScores] };
}

export type RaceStep = { kind: 'evaluate'; positions: number[] } | { kind: 'complete' } | { kind: 'stop'; reason: string };

/** What comes next, given the child's evaluations so far (by valset position). */
export function nextRaceStep(race: ValsetRace, evaluated: ReadonlyMap<number, { score: number }>): RaceStep {
  const seen = race.order.filter((j) => evaluated.has(j));
  if (seen.length === race.order.length) return { kind: 'complete' };
  if (seen.length > 0) {
    const score = (j: number) => (evaluated.get(j) as { score: number }).score;
    const specialist = seen.some((j) => score(j) > (race.bestScores[j] ?? -Infinity));
    const child = sum(seen.map(score));
    const parent = sum(seen.map((j) => race.parentScores[j] ?? 0));
    if (!specialist && child < parent - race.margin) {
      return { kind: 'stop', reason: `lost its valset race: ${child} vs its parent's ${parent} on the first ${seen.length} of ${race.order.length} examples` };
    }
  }
  return { kind: 'evaluate', positions: race.order.slice(seen.length, seen.length + race.chunk) };
}

/** The pool's view a race needs: the parents' rows and every candidate's, by valset position. */
export interface RacePool {
  valSubscores: ReadonlyArray<ReadonlyArray<number>>;
  valScores: ReadonlyArray<number>;
}

/** The race of a child of `parents` (for a merge, against the better-scoring parent). */
export function valsetRaceFor(policy: ValsetPolicy, pool: RacePool, parents: readonly number[], offset: number): ValsetRace | null {
  if (policy === 'full' || parents.length === 0) return null;
  const parent = parents.reduce((a, b) => ((pool.valScores[b] ?? 0) > (pool.valScores[a] ?? 0) ? b : a));
  const parentScores = pool.valSubscores[parent] ?? [];
  const bestScores = parentScores.map((_, j) => Math.max(...pool.valSubscores.map((row) => row[j] ?? -Infinity)));
  return planValsetRace(policy, parentScores, bestScores, offset);
}
