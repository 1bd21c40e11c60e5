// The pool of accepted candidates: texts, content hashes, lineage, valset subscores and means,
// the metric calls spent when each was found, and each candidate's round-robin component
// pointer; with trackBestOutputs, the best outputs per valset example. Plain data; adding
// returns a new pool so a step can be folded in task order.
import { mean } from './scores.js';
import { candidateHash } from './candidateHash.js';
import { argmaxMean } from './scores.js';
import { computeFronts, extendInstanceFronts, type Fronts, type Objectives } from './paretoFront.js';
import { withCandidateOutputs } from './bestOutputs.js';
import type { Candidate } from './adapter.js';
import type { FrontType } from '../../settingValues.js';
import type { ValsetBestOutputs } from './optimizeResult.js';

export interface CandidatePool {
  candidates: Candidate[];
  hashes: string[];
  parents: number[][];
  valSubscores: number[][];
  valObjectives: Array<Array<Objectives | null>>;
  valScores: number[];
  discoveryMetricCalls: number[];
  discoveryElapsedMs: number[];
  componentPointers: number[];
  /** Present when the run tracks best outputs (trackBestOutputs): one entry per valset example. */
  bestOutputs?: ValsetBestOutputs[];
}

export interface NewCandidate {
  candidate: Candidate;
  /** Its content hash, when the caller has it already. */
  hash?: string;
  parents: number[];
  subscores: number[];
  objectives?: Array<Objectives | null>;
  /** Its valset outputs, read only when the pool tracks best outputs. */
  outputs?: ReadonlyArray<unknown>;
  metricCallsAtDiscovery: number;
  /** Run time when it was found; default 0. */
  elapsedMsAtDiscovery?: number;
}

export const emptyPool = (options: { trackBestOutputs?: boolean } = {}): CandidatePool => ({
  candidates: [],
  hashes: [],
  parents: [],
  valSubscores: [],
  valObjectives: [],
  valScores: [],
  discoveryMetricCalls: [],
  discoveryElapsedMs: [],
  componentPointers: [],
  ...(options.trackBestOutputs ? { bestOutputs: [] } : {}),
});

export function addCandidate(pool: CandidatePool, entry: NewCandidate): { pool: CandidatePool; index: number } {
  const index = pool.candidates.length;
  if (pool.valSubscores.length > 0 && entry.subscores.length !== pool.valSubscores[0]?.length) {
    throw new Error(`candidate ${index} has ${entry.subscores.length} valset scores, the pool expects ${pool.valSubscores[0]?.length}`);
  }
  const valSubscores = [...pool.valSubscores, [...entry.subscores]];
  grownFrom.set(valSubscores, pool.valSubscores);
  const hashes = [...pool.hashes, entry.hash ?? candidateHash(entry.candidate)];
  hashesGrownFrom.set(hashes, pool.hashes);
  return {
    index,
    pool: {
      candidates: [...pool.candidates, entry.candidate],
      hashes,
      parents: [...pool.parents, [...entry.parents]],
      valSubscores,
      valObjectives: [...pool.valObjectives, entry.objectives ? [...entry.objectives] : entry.subscores.map(() => null)],
      valScores: [...pool.valScores, mean(entry.subscores)],
      discoveryMetricCalls: [...pool.discoveryMetricCalls, entry.metricCallsAtDiscovery],
      discoveryElapsedMs: [...pool.discoveryElapsedMs, entry.elapsedMsAtDiscovery ?? 0],
      componentPointers: [...pool.componentPointers, inheritedPointer(entry.parents.map((p) => pool.componentPointers[p] ?? 0))],
      ...(pool.bestOutputs ? { bestOutputs: withCandidateOutputs(pool.bestOutputs, index, entry.subscores, entry.outputs) } : {}),
    },
  };
}

/** The pool with these pointers: itself when they are its own (a plan that moved none). */
export function withComponentPointers(pool: CandidatePool, componentPointers: number[]): CandidatePool {
  return componentPointers === pool.componentPointers ? pool : { ...pool, componentPointers };
}

/** All ancestors of candidate i (not i itself). */
export function ancestorsOf(parents: ReadonlyArray<ReadonlyArray<number>>, i: number): Set<number> {
  const seen = new Set<number>();
  const stack = [...(parents[i] ?? [])];
  while (stack.length > 0) {
    const p = stack.pop() as number;
    if (seen.has(p)) continue;
    seen.add(p);
    stack.push(...(parents[p] ?? []));
  }
  return seen;
}

/**
 * Whether candidate `a` is an ancestor of candidate `i`. A candidate joins after its parents (its
 * index is above theirs), so only `a < i` can be, and the walk up from `i` stops below `a`: a
 * stale child's rebase asks this of a parent deep in a lineage the rebases themselves make long
 * (ancestorsOf walked all of it, at every decision).
 */
export function isAncestor(parents: ReadonlyArray<ReadonlyArray<number>>, a: number, i: number): boolean {
  if (a >= i) return false;
  const seen = new Set<number>();
  const stack = [...(parents[i] ?? [])];
  while (stack.length > 0) {
    const p = stack.pop() as number;
    if (p === a) return true;
    if (p < a || seen.has(p)) continue;
    seen.add(p);
    stack.push(...(parents[p] ?? []));
  }
  return false;
}

// The best index of a score array: every fold asks it, and most folds add no candidate (a pool's
// scores are a new array when, and only when, one joins).
const bestMemo = new WeakMap<readonly number[], number>();

/** Highest mean valset score; ties go to the earlier candidate. */
export function bestIndex(pool: CandidatePool): number {
  let best = bestMemo.get(pool.valScores);
  if (best === undefined) {
    best = argmaxMean(pool.valScores);
    bestMemo.set(pool.valScores, best);
  }
  return best;
}

/** Candidate `index` and its hash; an index not in the pool is a bug in the caller, named here. */
export function memberOf(pool: CandidatePool, index: number): { candidate: Candidate; hash: string } {
  const candidate = pool.candidates[index];
  const hash = pool.hashes[index];
  if (candidate === undefined || hash === undefined) throw new RangeError(`no candidate ${index} in a pool of ${pool.candidates.length}`);
  return { candidate, hash };
}

// Hash -> first index, per hashes array. A pool's hashes only ever grow by appending (a new array
// each time a candidate joins), so one map serves a whole line of arrays: it is extended in place
// for the array grown from the newest one it covers, and an array reads only the entries below its
// own length. An array grown from an older one (a second branch from the same pool) gets a map of
// its own. Without this the map was rebuilt after every addition: quadratic in the pool's size.
interface HashIndex {
  readonly firstIndex: Map<string, number>;
  /** How many hashes of the line the map holds (the longest array it serves). */
  covered: number;
}
const hashIndexMemo = new WeakMap<readonly string[], HashIndex>();
// Each hashes array -> the one it grew from by appending one hash.
const hashesGrownFrom = new WeakMap<readonly string[], readonly string[]>();

function hashIndexOf(hashes: readonly string[]): HashIndex {
  let index = hashIndexMemo.get(hashes);
  if (index) return index;
  const from = hashesGrownFrom.get(hashes);
  // Not recursive: a fold looks a pool up before it adds to it, so the one grown from is indexed.
  const earlier = from ? hashIndexMemo.get(from) : undefined;
  // Extend the line's map only from the newest array it covers: else a branch, with its own map.
  index = earlier && from && earlier.covered === from.length ? earlier : { firstIndex: new Map(), covered: 0 };
  // First occurrence wins, as with indexOf.
  for (let i = index.covered; i < hashes.length; i++) if (!index.firstIndex.has(hashes[i] as string)) index.firstIndex.set(hashes[i] as string, i);
  index.covered = hashes.length;
  hashIndexMemo.set(hashes, index);
  return index;
}

/** Index of the candidate with this content hash, or -1. */
export function indexOfHash(pool: CandidatePool, hash: string): number {
  const at = hashIndexOf(pool.hashes).firstIndex.get(hash);
  return at !== undefined && at < pool.hashes.length ? at : -1;
}

/** indexOfHash bound to one pool. */
export const poolLookup =
  (pool: CandidatePool) =>
  (hash: string): number =>
    indexOfHash(pool, hash);

// Fronts change only when a candidate joins, which makes new score arrays: memoize on them.
const frontsMemo = new WeakMap<object, Map<FrontType, Fronts>>();
// Each pool's score table -> the one it grew from by one candidate, so that instance fronts are
// extended by one row instead of recomputed over the whole pool after every addition.
const grownFrom = new WeakMap<object, number[][]>();

/** The pool's fronts (memoized; treat the result as read-only). */
export function poolFronts(pool: CandidatePool, frontType: FrontType): Fronts {
  let byType = frontsMemo.get(pool.valSubscores);
  if (!byType) frontsMemo.set(pool.valSubscores, (byType = new Map()));
  let fronts = byType.get(frontType);
  if (!fronts) {
    fronts = (frontType === 'instance' ? grownInstanceFronts(pool.valSubscores) : undefined) ?? computeFronts({ subscores: pool.valSubscores, objectives: pool.valObjectives }, frontType);
    byType.set(frontType, fronts);
  }
  return fronts;
}

/**
 * The instance fronts of a score table grown by one candidate, extended from the fronts of the
 * table it grew from, those computed the same way when they were never asked for (a batched step
 * adds several candidates before the next fold reads the fronts): undefined when the chain reaches
 * a table that did not grow from another (the seed's), so the caller computes them.
 */
function grownInstanceFronts(subscores: number[][]): Fronts | undefined {
  const previous = grownFrom.get(subscores);
  if (!previous) return undefined;
  let byType = frontsMemo.get(previous);
  let earlier = byType?.get('instance');
  if (!earlier) {
    earlier = grownInstanceFronts(previous) ?? computeFronts({ subscores: previous }, 'instance');
    if (!byType) frontsMemo.set(previous, (byType = new Map()));
    byType.set('instance', earlier);
  }
  return extendInstanceFronts(earlier, subscores, subscores.length - 1);
}

export function inheritedPointer(parentPointers: readonly number[]): number {
  return parentPointers.length === 0 ? 0 : Math.max(...parentPointers);
}
