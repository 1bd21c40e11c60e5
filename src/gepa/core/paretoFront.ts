// Pareto fronts over the pool's valset scores and the removal of dominated candidates.
// A front is the set of candidates tied at the best score on one "key": a valset example
// (instance), an objective's mean (objective), both (hybrid), or an (example, objective) pair
// (cartesian). A candidate that is the only best on some key is never removed.
import type { FrontType, TieOrder } from '../../settingValues.js';
import { addedInPlace, copyOrder, grownSet, type GrownSet } from './pythonSetOrder.js';

export type Objectives = Readonly<Record<string, number>>;

export interface ScoreTable {
  /** subscores[i][j]: candidate i on valset example j. */
  subscores: ReadonlyArray<ReadonlyArray<number>>;
  /** objectives[i][j]: candidate i's per-objective scores on example j, when the adapter gives them. */
  objectives?: ReadonlyArray<ReadonlyArray<Objectives | null>>;
}

/** Each front lists the candidate indices tied at the best value, ascending. */
export type Fronts = number[][];

function argmaxSet(values: ReadonlyArray<number | undefined>): number[] {
  let best = -Infinity;
  let members: number[] = [];
  values.forEach((v, i) => {
    if (v === undefined || Number.isNaN(v)) return;
    if (v > best) {
      best = v;
      members = [i];
    } else if (v === best) {
      members.push(i);
    }
  });
  return members;
}

/**
 * Equal fronts are one array (read-only, as every front): extendInstanceFronts keeps them one
 * while they stay equal, so a candidate tying on many examples that share their best (an
 * example every candidate solves) is added to one copy, not one per example, and dominated
 * removal and the tie order work on each distinct array once (same survivors, same order).
 */
export function instanceFronts(table: ScoreTable): Fronts {
  const examples = table.subscores[0]?.length ?? 0;
  const fronts: Fronts = [];
  const byMembers = new Map<string, number[]>();
  for (let j = 0; j < examples; j++) {
    const front = argmaxSet(table.subscores.map((row) => row[j]));
    const members = front.join(',');
    const same = byMembers.get(members);
    if (same === undefined) byMembers.set(members, front);
    fronts.push(same ?? front);
  }
  return fronts;
}

/**
 * The instance fronts after candidate `index` (the last row of `subscores`) joins, from the
 * fronts without it: only the examples it ties or beats change, and unchanged fronts are shared
 * (read-only).
 * Undefined when the earlier fronts do not map one to one onto the examples (an example nobody
 * has a score on), so the caller recomputes.
 */
export function extendInstanceFronts(fronts: Fronts, subscores: ReadonlyArray<ReadonlyArray<number>>, index: number): Fronts | undefined {
  const row = subscores[index];
  if (row === undefined || fronts.length !== row.length) return undefined;
  // Fronts that were one array stay one array (removeDominated then works on it once).
  const grown = new Map<number[], number[]>();
  let alone: number[] | undefined;
  return fronts.map((front, j) => {
    const value = row[j];
    const best = subscores[front[0] as number]?.[j];
    if (value === undefined || Number.isNaN(value) || best === undefined || value < best) return front;
    if (value > best) return (alone ??= [index]);
    let tied = grown.get(front);
    if (tied === undefined) {
      grown.set(front, (tied = [...front, index]));
      tiedFrom.set(tied, front);
    }
    return tied;
  });
}

function objectiveNames(table: ScoreTable): string[] {
  const names = new Set<string>();
  for (const row of table.objectives ?? []) for (const cell of row) for (const k of Object.keys(cell ?? {})) names.add(k);
  return [...names].sort();
}

export function objectiveFronts(table: ScoreTable): Fronts {
  const rows = table.objectives ?? [];
  return objectiveNames(table).map((name) =>
    argmaxSet(
      rows.map((row) => {
        const values = row.map((cell) => cell?.[name]).filter((v): v is number => v !== undefined);
        return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
      }),
    ),
  );
}

export function cartesianFronts(table: ScoreTable): Fronts {
  const rows = table.objectives ?? [];
  const examples = table.subscores[0]?.length ?? 0;
  const fronts: Fronts = [];
  for (const name of objectiveNames(table)) {
    for (let j = 0; j < examples; j++) fronts.push(argmaxSet(rows.map((row) => row[j]?.[name])));
  }
  return fronts;
}

/** The fronts of `type`; without objective scores every type falls back to instance fronts. */
export function computeFronts(table: ScoreTable, type: FrontType = 'instance'): Fronts {
  const nonEmpty = (fronts: Fronts) => fronts.filter((f) => f.length > 0);
  let fronts: Fronts;
  switch (type) {
    case 'instance':
      fronts = instanceFronts(table);
      break;
    case 'objective':
      fronts = objectiveFronts(table);
      break;
    case 'hybrid':
      fronts = [...instanceFronts(table), ...objectiveFronts(table)];
      break;
    case 'cartesian':
      fronts = cartesianFronts(table);
      break;
  }
  fronts = nonEmpty(fronts);
  return fronts.length > 0 || type === 'instance' ? fronts : nonEmpty(instanceFronts(table));
}

/** The order functions here use when none is given (the async schedule's default). */
export const DEFAULT_TIE_ORDER: TieOrder = 'oldest-survives';

/**
 * A run's default by schedule, as measured on the bench tasks (bench/README.md, "The reference
 * bridge"): batched steps take the reference's exact order, the async schedule loses by it.
 */
export const defaultTieOrder = (schedule: 'batched' | 'async'): TieOrder => (schedule === 'batched' ? 'reference' : DEFAULT_TIE_ORDER);

// A front made by extendInstanceFronts -> the front it extends by its last member.
const tiedFrom = new WeakMap<readonly number[], readonly number[]>();
// Each front's Python set (see firstSeenRanks), and the order a copy of it iterates in.
const setMemo = new WeakMap<readonly number[], GrownSet>();
const firstSeenMemo = new WeakMap<readonly number[], number[]>();

/**
 * The Python set of `front`: the set of the front it extends plus its last member when that one
 * is known (a front that grew by a tie pays for one insertion, not for its whole set), else built
 * from the members. Walks back over fronts never ordered (a batched step extends the fronts once
 * per candidate it adds before they are read). The set it extends is taken over, grown in place
 * (copying a table of up to 4x a front's members at every addition was most of this work's
 * garbage): the front it belonged to loses it, and, should it be asked again (a second pool grown
 * from the same one), is built afresh from its members, the same set.
 */
function frontSet(front: readonly number[]): GrownSet {
  const pending: Array<readonly number[]> = [];
  let at: readonly number[] | undefined = front;
  let set: GrownSet | undefined;
  while (at !== undefined && (set = setMemo.get(at)) === undefined) {
    pending.push(at);
    at = tiedFrom.get(at);
  }
  if (pending.length === 0) return set as GrownSet;
  // The set found is taken over below: its front must not hand it out again.
  if (at !== undefined) setMemo.delete(at);
  for (let k = pending.length - 1; k >= 0; k--) {
    const f = pending[k] as readonly number[];
    set = set === undefined ? grownSet(f) : addedInPlace(set, f[f.length - 1] as number);
  }
  setMemo.set(front, set as GrownSet);
  return set as GrownSet;
}

/**
 * Each candidate's rank in the order gepa 0.1.4 first meets it: fronts by valset example, each
 * front in its Python set's iteration order (pythonSetOrder). Fronts share arrays, so each
 * distinct array is ordered once.
 */
function firstSeenRanks(fronts: ReadonlyArray<readonly number[]>, top: number): Int32Array {
  const rank = new Int32Array(top + 1).fill(-1);
  let next = 0;
  for (const front of fronts) {
    let order = firstSeenMemo.get(front);
    if (order === undefined) {
      order = copyOrder(frontSet(front));
      firstSeenMemo.set(front, order);
    }
    for (const c of order) if (rank[c] === -1) rank[c] = next++;
  }
  return rank;
}

/**
 * Drops candidates that are never the only best anywhere: scanning in ascending mean score
 * (equal means: the higher index first with 'oldest-survives', the lower with
 * 'newest-survives', the first met with 'reference'), remove a candidate when every front holding it holds another
 * survivor. (The reference restarts the scan after each removal; removals only make the others
 * harder to remove, so one pass gives the same survivors.) Returns the fronts restricted to the
 * survivors (read-only: identical input arrays share one output array).
 *
 * It runs after every addition, and fronts get big: an example nobody solves holds every
 * candidate. Extended fronts share arrays (see extendInstanceFronts), so each distinct array is
 * worked on once (two copies of a front always keep the same survivors), in typed arrays;
 * linear in the total size of the distinct fronts.
 */
export function removeDominated(fronts: Fronts, meanScores: ReadonlyArray<number>, tieOrder: TieOrder = DEFAULT_TIE_ORDER): Fronts {
  const position = new Map<readonly number[], number>();
  const distinct: Array<readonly number[]> = [];
  for (const front of fronts) {
    if (!position.has(front)) {
      position.set(front, distinct.length);
      distinct.push(front);
    }
  }
  let size = 0;
  let top = -1;
  for (const front of distinct) {
    size += front.length;
    for (const c of front) if (c > top) top = c;
  }
  // holding[start[c] .. start[c + 1]) = indices of the distinct fronts holding candidate c.
  const start = new Int32Array(top + 2);
  for (const front of distinct) for (const c of front) start[c + 1] = (start[c + 1] as number) + 1;
  for (let c = 0; c <= top; c++) start[c + 1] = (start[c + 1] as number) + (start[c] as number);
  const next = start.slice(0, top + 1);
  const holding = new Int32Array(size);
  distinct.forEach((front, f) => {
    for (const c of front) {
      const at = next[c] as number;
      holding[at] = f;
      next[c] = at + 1;
    }
  });
  const survivors = Int32Array.from(distinct, (front) => front.length);
  const alive = new Uint8Array(top + 1);
  const order: number[] = [];
  for (let c = 0; c <= top; c++) {
    if ((start[c + 1] as number) > (start[c] as number)) {
      alive[c] = 1;
      order.push(c);
    }
  }
  const olderFirst = tieOrder === 'newest-survives';
  const seen = tieOrder === 'reference' ? firstSeenRanks(distinct, top) : undefined;
  const tie = seen ? (a: number, b: number) => (seen[a] as number) - (seen[b] as number) : olderFirst ? (a: number, b: number) => a - b : (a: number, b: number) => b - a;
  order.sort((a, b) => (meanScores[a] ?? 0) - (meanScores[b] ?? 0) || tie(a, b));
  for (const c of order) {
    const from = start[c] as number;
    const to = start[c + 1] as number;
    let removable = true;
    for (let k = from; k < to && removable; k++) removable = (survivors[holding[k] as number] as number) >= 2;
    if (!removable) continue;
    for (let k = from; k < to; k++) survivors[holding[k] as number] = (survivors[holding[k] as number] as number) - 1;
    alive[c] = 0;
  }
  const kept = distinct.map((front) => front.filter((c) => alive[c] === 1));
  return fronts.map((front) => kept[position.get(front) as number] as number[]);
}

/** The candidates left on some front after dominated removal, ascending. */
export function nonDominatedCandidates(fronts: Fronts, meanScores: ReadonlyArray<number>, tieOrder: TieOrder = DEFAULT_TIE_ORDER): number[] {
  return [...new Set(removeDominated(fronts, meanScores, tieOrder).flat())].sort((a, b) => a - b);
}
