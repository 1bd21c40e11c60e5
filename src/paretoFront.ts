// Pareto fronts over the pool's valset scores and the removal of dominated candidates.
// A front is the set of candidates tied at the best score on one "key": a valset example
// (instance), an objective's mean (objective), both (hybrid), or an (example, objective) pair
// (cartesian). A candidate that is the only best on some key is never removed.
import type { FrontType } from './types.js';

export type Objectives = Readonly<Record<string, number>>;

export interface ScoreTable {
  /** subscores[i][j]: candidate i on valset example j. */
  subscores: ReadonlyArray<ReadonlyArray<number>>;
  /** objectives[i][j]: candidate i's per-objective scores on example j, when the adapter gives them. */
  objectives?: ReadonlyArray<ReadonlyArray<Objectives | undefined>>;
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

export function instanceFronts(table: ScoreTable): Fronts {
  const examples = table.subscores[0]?.length ?? 0;
  const fronts: Fronts = [];
  for (let j = 0; j < examples; j++) fronts.push(argmaxSet(table.subscores.map((row) => row[j])));
  return fronts;
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

/**
 * Drops candidates that are never the only best anywhere: scanning in ascending mean score
 * (ties: higher index first), remove a candidate when every front holding it holds another
 * survivor. (The reference restarts the scan after each removal; removals only make the others
 * harder to remove, so one pass gives the same survivors.) Returns the fronts restricted to the
 * survivors. Linear in the total size of the fronts.
 */
export function removeDominated(fronts: Fronts, meanScores: ReadonlyArray<number>): Fronts {
  const alive = new Map<number, number[]>(); // candidate -> indices of the fronts holding it
  fronts.forEach((front, f) => {
    for (const c of front) {
      const holding = alive.get(c);
      if (holding) holding.push(f);
      else alive.set(c, [f]);
    }
  });
  const survivors = fronts.map((front) => front.length);
  const order = [...alive.keys()].sort((a, b) => (meanScores[a] ?? 0) - (meanScores[b] ?? 0) || b - a);
  for (const c of order) {
    const holding = alive.get(c) as number[];
    if (holding.every((f) => (survivors[f] as number) >= 2)) {
      for (const f of holding) survivors[f] = (survivors[f] as number) - 1;
      alive.delete(c);
    }
  }
  return fronts.map((front) => front.filter((c) => alive.has(c)));
}

/** The candidates left on some front after dominated removal, ascending. */
export function nonDominatedCandidates(fronts: Fronts, meanScores: ReadonlyArray<number>): number[] {
  return [...new Set(removeDominated(fronts, meanScores).flat())].sort((a, b) => a - b);
}
