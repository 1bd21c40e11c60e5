// The user's planning hooks (selectCandidate, selectComponents, sampleMinibatch) as the planner
// calls them: each call handed the run's RNG, its answer checked, and a throw or an invalid
// answer turned into a reason (the proposal is then recorded as failed, the run goes on).
import type { CandidatePool } from '../core/candidatePool.js';
import type { Fronts } from '../core/paretoFront.js';
import type { Rng } from '../core/rng.js';
import { errorMessage } from '../../errors/errorMessage.js';
import type { PoolView, SampleMinibatch, SelectCandidate, SelectComponents } from './hookSignatures.js';

export interface PlanningHooks {
  selectCandidate?: SelectCandidate;
  selectComponents?: SelectComponents;
  sampleMinibatch?: SampleMinibatch;
}

/** A hook's checked answer, or why it is not one. */
export type HookAnswer<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Strategy hooks failing this many proposals in a row stop the run (nothing else would: they spend nothing). */
export const MAX_HOOK_FAILURES_IN_A_ROW = 10;

export const poolView = (pool: CandidatePool, fronts: Fronts, step: number): PoolView => ({
  step,
  candidates: pool.candidates,
  valScores: pool.valScores,
  valSubscores: pool.valSubscores,
  parents: pool.parents,
  fronts,
});

/** Calls a hook; a throw or an answer `check` rejects (it returns why) becomes the reason. */
function callHook<T>(name: string, call: () => unknown, check: (value: unknown) => string | null): HookAnswer<T> {
  let value: unknown;
  try {
    value = call();
  } catch (error) {
    return { ok: false, reason: `${name} threw: ${errorMessage(error)}` };
  }
  const invalid = check(value);
  return invalid === null ? { ok: true, value: value as T } : { ok: false, reason: `${name} returned ${describe(value)}: ${invalid}` };
}

function describe(value: unknown): string {
  if (value instanceof Promise) return 'a Promise';
  return JSON.stringify(value)?.slice(0, 80) ?? String(value);
}

const isIndexBelow = (n: number) => (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) < n;

export function hookedParent(hook: SelectCandidate, view: PoolView, rng: Rng): HookAnswer<number> {
  const size = view.candidates.length;
  return callHook('selectCandidate', () => hook(view, rng), (v) => (isIndexBelow(size)(v) ? null : `not a candidate index (the pool has ${size})`));
}

export function hookedComponents(hook: SelectComponents, input: Parameters<SelectComponents>[0], rng: Rng): HookAnswer<string[]> {
  const known = new Set(input.componentNames);
  const answer = callHook<readonly string[]>('selectComponents', () => hook(input, rng), (v) => {
    if (!Array.isArray(v) || v.length === 0) return 'needs a non-empty list of component names';
    const unknown = v.find((name) => typeof name !== 'string' || !known.has(name));
    if (unknown !== undefined) return `${JSON.stringify(unknown)} is not a component (${input.componentNames.join(', ')})`;
    return new Set(v).size === v.length ? null : 'names a component twice';
  });
  return answer.ok ? { ok: true, value: [...answer.value] } : answer;
}

export function hookedMinibatch(hook: SampleMinibatch, input: Parameters<SampleMinibatch>[0], rng: Rng): HookAnswer<number[]> {
  const answer = callHook<readonly number[]>('sampleMinibatch', () => hook(input, rng), (v) => {
    // The proposal's budget reservation pays for minibatchSize examples, no more.
    if (!Array.isArray(v) || v.length === 0 || v.length > input.minibatchSize) return `needs 1 to ${input.minibatchSize} trainset indices`;
    return v.every(isIndexBelow(input.trainsetSize)) ? null : `indices must be integers in [0, ${input.trainsetSize})`;
  });
  return answer.ok ? { ok: true, value: [...answer.value] } : answer;
}
