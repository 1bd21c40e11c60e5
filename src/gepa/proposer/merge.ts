// Merge, GEPA's system-aware crossover: two non-dominated candidates, neither an ancestor of the
// other, with a common ancestor that scores no better than either; the child takes, per
// component, the text of whichever parent changed it from the ancestor (both changed: the
// better parent's). It is scored on a small valset subsample balanced between "first parent
// better", "second parent better" and ties, and accepted when it matches the better parent.
import type { AcceptanceVerdict } from '../core/proposal.js';
import { sum } from '../core/scores.js';
import { ancestorsOf, type CandidatePool } from '../core/candidatePool.js';
import { DEFAULT_TIE_ORDER, nonDominatedCandidates, type Fronts } from '../core/paretoFront.js';
import type { Rng } from '../core/rng.js';
import type { Candidate } from '../core/adapter.js';
import type { TieOrder } from '../../settingValues.js';

export const MERGE_SUBSAMPLE_SIZE = 5;

export interface MergeTriple {
  a: number;
  b: number;
  ancestor: number;
}

export const tripleKey = (t: MergeTriple): string => `${t.a}+${t.b}@${t.ancestor}`;

/** Per component: the text of the parent that changed it; both changed: the better parent's. */
export function mergeComponents(ancestor: Candidate, a: Candidate, b: Candidate, scoreA: number, scoreB: number): Candidate {
  const merged: Record<string, string> = {};
  for (const name of Object.keys(ancestor)) {
    const fromA = a[name] ?? '';
    const fromB = b[name] ?? '';
    const base = ancestor[name];
    if (fromA === base) merged[name] = fromB;
    else if (fromB === base) merged[name] = fromA;
    else merged[name] = scoreB > scoreA ? fromB : fromA;
  }
  return merged;
}

function differs(x: Candidate, y: Candidate): boolean {
  return Object.keys(x).some((k) => x[k] !== y[k]);
}

/**
 * Every merge worth trying, in a fixed order: non-dominated pairs a < b, a common ancestor that
 * scores <= both, and a merged child that differs from both parents (each brings a change).
 */
export function mergeTriples(pool: CandidatePool, fronts: Fronts, tried: ReadonlySet<string>, tieOrder: TieOrder = DEFAULT_TIE_ORDER): MergeTriple[] {
  const elite = nonDominatedCandidates(fronts, pool.valScores, tieOrder);
  const ancestors = pool.candidates.map((_, i) => ancestorsOf(pool.parents, i));
  const triples: MergeTriple[] = [];
  for (const a of elite) {
    for (const b of elite) {
      if (b <= a || ancestors[a]?.has(b) || ancestors[b]?.has(a)) continue;
      const common = [...(ancestors[a] ?? [])].filter((x) => ancestors[b]?.has(x)).sort((x, y) => x - y);
      for (const ancestor of common) {
        const s = pool.valScores;
        if ((s[ancestor] ?? 0) > (s[a] ?? 0) || (s[ancestor] ?? 0) > (s[b] ?? 0)) continue;
        const triple = { a, b, ancestor };
        if (tried.has(tripleKey(triple))) continue;
        const anc = pool.candidates[ancestor] as Candidate;
        const ca = pool.candidates[a] as Candidate;
        const cb = pool.candidates[b] as Candidate;
        if (!differs(ca, anc) || !differs(cb, anc)) continue;
        const child = mergeComponents(anc, ca, cb, s[a] ?? 0, s[b] ?? 0);
        if (differs(child, ca) && differs(child, cb)) triples.push(triple);
      }
    }
  }
  return triples;
}

/**
 * Valset ids for scoring a merge: drawn in turn from the shuffled "a better", "b better" and
 * "tie" buckets so that each side's strengths are represented.
 */
export function mergeSubsample(subA: readonly number[], subB: readonly number[], rng: Rng, size = MERGE_SUBSAMPLE_SIZE): number[] {
  const buckets: number[][] = [[], [], []];
  subA.forEach((scoreA, j) => {
    const scoreB = subB[j] ?? 0;
    (buckets[scoreA > scoreB ? 0 : scoreB > scoreA ? 1 : 2] as number[]).push(j);
  });
  const shuffled = buckets.map((bucket) => rng.shuffle(bucket));
  const picked: number[] = [];
  while (picked.length < size && shuffled.some((b) => b.length > 0)) {
    for (const bucket of shuffled) {
      if (picked.length < size && bucket.length > 0) picked.push(bucket.shift() as number);
    }
  }
  return picked.sort((x, y) => x - y);
}

export interface MergePlan {
  triple: MergeTriple;
  child: Candidate;
  /** Valset indices. */
  subsample: number[];
  parentSums: [number, number];
}

/** Draws one untried merge, or null when none is left. */
export function planMerge(pool: CandidatePool, fronts: Fronts, tried: ReadonlySet<string>, rng: Rng, tieOrder: TieOrder = DEFAULT_TIE_ORDER): MergePlan | null {
  const triples = mergeTriples(pool, fronts, tried, tieOrder);
  if (triples.length === 0) return null;
  const triple = rng.pick(triples);
  const { a, b, ancestor } = triple;
  const subA = pool.valSubscores[a] as number[];
  const subB = pool.valSubscores[b] as number[];
  const child = mergeComponents(
    pool.candidates[ancestor] as Candidate,
    pool.candidates[a] as Candidate,
    pool.candidates[b] as Candidate,
    pool.valScores[a] ?? 0,
    pool.valScores[b] ?? 0,
  );
  const subsample = mergeSubsample(subA, subB, rng);
  const pick = (row: number[]) => sum(subsample.map((j) => row[j] ?? 0));
  return { triple, child, subsample, parentSums: [pick(subA), pick(subB)] };
}

/** A merged child is kept when it scores at least as well as the better parent on the subsample. */
export function acceptMerge(childSum: number, parentSums: readonly [number, number]): boolean {
  return childSum >= Math.max(...parentSums);
}

/** The merge gate as a verdict, margin taken against the better parent. */
export function judgeMerge(childScores: readonly number[], parentSums: readonly [number, number]): AcceptanceVerdict {
  const childSum = sum(childScores);
  const parentSum = Math.max(...parentSums);
  return { accepted: acceptMerge(childSum, parentSums), parentSum, childSum, margin: childSum - parentSum };
}
