// How the search stands and what a finished proposal changes: the seed joins the pool, finished
// proposals are folded (in the order given), the best score and the count of proposals (async)
// or steps (batched) without a better one are kept, a merge becomes due when a candidate joins,
// and every proposal leaves a record. Returns the run events each change makes.
import { paretoFrontMembers } from '../strategies/parentSelection.js';
import { bestIndex, poolFronts, type CandidatePool } from '../core/candidatePool.js';
import type { ValsetScores, Proposal } from '../core/proposal.js';
import { addWithRefinements, foldProposals } from './proposalFold.js';
import type { SearchState } from './searchState.js';
import type { Candidate } from '../core/adapter.js';
import type { FrontType, TieOrder } from '../../settingValues.js';
import type { ProposalRecord } from '../core/optimizeResult.js';
import type { RunEvent } from '../core/runEvent.js';

export interface SearchProgress {
  bestScore: number;
  /** Folds in a row that found no better best: batched steps, or async proposals. */
  stepsWithoutImprovement: number;
  reflectionCalls: number;
  reflectionCostUsd: number;
  /** Append-only, appended in place (copying it per proposal would be quadratic). */
  records: ProposalRecord[];
}

/**
 * Before the seed: no best yet. The seed's score replaces bestScore (addSeed), so its start value
 * is never compared; it is the lowest finite number rather than -Infinity because the run's state
 * is plain data, and JSON has no -Infinity.
 */
export const startProgress = (): SearchProgress => ({ bestScore: -Number.MAX_VALUE, stepsWithoutImprovement: 0, reflectionCalls: 0, reflectionCostUsd: 0, records: [] });

export interface SearchUpdate {
  search: SearchState;
  progress: SearchProgress;
  events: RunEvent[];
}

/**
 * The seed's valset evaluation: candidate 0 and the first best score; with optimizeAnything's
 * refiner, the refined candidates it carries join after it (`fronts` reads the front they make).
 */
export function addSeed(
  search: SearchState,
  progress: SearchProgress,
  seed: { candidate: Candidate; hash: string; valset: ValsetScores },
  metricCallsNow: number,
  fronts?: Pick<FoldOptions, 'frontType' | 'tieOrder'>,
): SearchUpdate {
  const { pool, refined } = addWithRefinements(search.pool, {
    candidate: seed.candidate,
    hash: seed.hash,
    parents: [],
    subscores: seed.valset.subscores,
    objectives: seed.valset.objectives,
    outputs: seed.valset.outputs,
    metricCallsAtDiscovery: metricCallsNow,
    valset: seed.valset,
  });
  const seedScore = pool.valScores[0] ?? 0;
  const events: RunEvent[] = [
    { type: 'seed.evaluated', valScore: seedScore, valSubscores: pool.valSubscores[0] ?? [], candidate: seed.candidate, metricCalls: pool.discoveryMetricCalls[0] ?? 0, elapsedMs: pool.discoveryElapsedMs[0] ?? 0 },
  ];
  if (refined.length === 0 || !fronts) {
    events.push({ type: 'front.updated', bestIndex: 0, bestScore: seedScore, frontSize: 1, front: [0] });
    return { search: { ...search, pool }, progress: { ...progress, bestScore: seedScore }, events };
  }
  events.push(...refinedEvents(pool, refined), frontEvent(pool, fronts));
  return { search: { ...search, pool }, progress: { ...progress, bestScore: pool.valScores[bestIndex(pool)] ?? 0 }, events };
}

/** The candidates the refiner added (each its predecessor's child) as run events. */
function refinedEvents(pool: CandidatePool, refined: readonly number[]): RunEvent[] {
  return refined.map((index) => ({
    type: 'candidate.accepted',
    index,
    parents: pool.parents[index] ?? [],
    valScore: pool.valScores[index] ?? 0,
    candidate: pool.candidates[index],
    valSubscores: pool.valSubscores[index] ?? [],
    metricCalls: pool.discoveryMetricCalls[index] ?? 0,
    elapsedMs: pool.discoveryElapsedMs[index] ?? 0,
    refined: true,
  }));
}

/** The front as it stands: its members, the best and its score. */
function frontEvent(pool: CandidatePool, at: Pick<FoldOptions, 'frontType' | 'tieOrder'>): RunEvent {
  const best = bestIndex(pool);
  const front = paretoFrontMembers(poolFronts(pool, at.frontType), pool.valScores, at.tieOrder);
  return { type: 'front.updated', bestIndex: best, bestScore: pool.valScores[best] ?? 0, frontSize: front.length, front };
}

/** What the proposals spent on reflection, summed. */
function spentOn(finished: readonly Proposal[], key: 'reflectionCalls' | 'reflectionCostUsd'): number {
  return finished.reduce((n, p) => n + (p.spend?.[key] ?? 0), 0);
}

/** What a fold needs besides the proposals: the moment it happens (calls spent, time elapsed) and how fronts are read. */
export interface FoldOptions {
  metricCallsNow: number;
  elapsedMsNow: number;
  frontType: FrontType;
  tieOrder: TieOrder;
}

/** Folds finished proposals (in the order given) into the pool, the progress and the records. */
export function foldFinished(search: SearchState, progress: SearchProgress, finished: readonly Proposal[], at: FoldOptions): SearchUpdate {
  const folded = foldProposals(search.pool, finished, at.metricCallsNow, at.elapsedMsNow);
  const best = bestIndex(folded.pool);
  const bestScore = folded.pool.valScores[best] ?? 0;
  const events: RunEvent[] = [];
  for (const r of folded.records) {
    events.push({ type: 'proposal.ended', step: r.step, task: r.task, outcome: r.outcome, reason: r.reason, staleness: r.staleness });
    if (r.outcome === 'accepted' && r.candidateIndex !== undefined) {
      const index = r.candidateIndex;
      const { valScores, candidates, valSubscores, discoveryMetricCalls, discoveryElapsedMs } = folded.pool;
      events.push({
        type: 'candidate.accepted', index, parents: r.parents, valScore: valScores[index] ?? 0, candidate: candidates[index], step: r.step, task: r.task, valSubscores: valSubscores[index] ?? [],
        metricCalls: discoveryMetricCalls[index] ?? 0, elapsedMs: discoveryElapsedMs[index] ?? 0,
      });
      const refined = folded.refinedAfter[index];
      if (refined) events.push(...refinedEvents(folded.pool, refined));
    } else if (r.outcome === 'rejected') {
      events.push({ type: 'candidate.rejected', step: r.step, task: r.task, reason: r.reason });
    }
  }
  if (folded.added.length > 0) events.push(frontEvent(folded.pool, at));
  for (const r of folded.records) progress.records.push(r);
  return {
    search: { ...search, pool: folded.pool, merges: folded.added.length > 0 ? { ...search.merges, due: true } : search.merges },
    progress: {
      bestScore: Math.max(bestScore, progress.bestScore),
      stepsWithoutImprovement: bestScore > progress.bestScore ? 0 : progress.stepsWithoutImprovement + 1,
      reflectionCalls: progress.reflectionCalls + spentOn(finished, 'reflectionCalls'),
      reflectionCostUsd: progress.reflectionCostUsd + spentOn(finished, 'reflectionCostUsd'),
      records: progress.records,
    },
    events,
  };
}

/** Records for the proposals a stop cut short: skipped, with the stop's reason. */
export function recordStopped(progress: SearchProgress, stopped: readonly Proposal[], stopReason: string | undefined): SearchProgress {
  for (const p of stopped) {
    progress.records.push({
      step: p.step,
      task: p.task,
      kind: p.kind,
      parents: p.parents,
      outcome: 'skipped',
      reason: `stopped before it finished (${stopReason})`,
      staleness: 0,
      reflectionCostUsd: 0,
    });
  }
  return progress;
}

/** Records for the proposals a planning hook failed to plan, and their events (an error each). */
export function recordPlanFailures(progress: SearchProgress, failures: readonly ProposalRecord[]): { progress: SearchProgress; events: RunEvent[] } {
  const events: RunEvent[] = [];
  for (const r of failures) {
    progress.records.push(r);
    events.push({ type: 'error', message: `task ${r.step}/${r.task}: ${r.reason}` }, { type: 'proposal.ended', step: r.step, task: r.task, outcome: r.outcome, reason: r.reason, staleness: r.staleness });
  }
  return { progress, events };
}
