// A granted valset race, as its proposer runs it: the child's evaluations so far by valset
// position, and what comes next, asked of the race's rule (strategies/valsetPolicy.ts) once per
// chunk: the next chunk's example ids, a stop with the reason, or the complete valset scores.
import type { Evaluation } from '../core/adapter.js';
import { valsetScoresOf, type Proposal, type ValsetScores } from '../core/proposal.js';
import { nextRaceStep, type ValsetRace } from '../strategies/valsetPolicy.js';

export type RaceNext =
  | { kind: 'evaluate'; positions: number[]; exampleIds: number[] }
  | { kind: 'stop'; reason: string }
  /** Every position evaluated: the valset scores in valset order. */
  | { kind: 'complete'; valset: ValsetScores };

export interface ValsetRaceRun {
  plan: ValsetRace;
  /** Example-table ids of the valset, by position. */
  valIds: readonly number[];
  /** The child's evaluations so far, by valset position. */
  evaluated: ReadonlyMap<number, Evaluation>;
  next: RaceNext;
}

/** The race as it starts: nothing evaluated, the first chunk next. */
export const startRace = (plan: ValsetRace, valIds: readonly number[]): ValsetRaceRun => advance(plan, valIds, new Map());

/** The race once the chunk it asked for has been evaluated (`evaluations` in the order of its positions). */
export function raceAfterChunk(race: ValsetRaceRun, evaluations: readonly Evaluation[]): ValsetRaceRun {
  const evaluated = new Map(race.evaluated);
  if (race.next.kind === 'evaluate') race.next.positions.forEach((j, i) => evaluated.set(j, evaluations[i] as Evaluation));
  return advance(race.plan, race.valIds, evaluated);
}

function advance(plan: ValsetRace, valIds: readonly number[], evaluated: Map<number, Evaluation>): ValsetRaceRun {
  const step = nextRaceStep(plan, evaluated);
  const next: RaceNext =
    step.kind === 'evaluate'
      ? { kind: 'evaluate', positions: step.positions, exampleIds: step.positions.map((j) => valIds[j] as number) }
      : step.kind === 'stop'
        ? step
        : { kind: 'complete', valset: valsetScoresOf(valIds.map((_, j) => evaluated.get(j) as Evaluation)) };
  return { plan, valIds, evaluated, next };
}

/** What a finished race adds to the proposal's record: the valset scores, or why the race was stopped. */
export function raceResult(race: ValsetRaceRun): Pick<Proposal, 'valset' | 'valsetStop'> {
  if (race.next.kind === 'stop') return { valsetStop: race.next.reason };
  return race.next.kind === 'complete' ? { valset: race.next.valset } : {};
}
