// The signatures of the strategy hooks a user may pass (selectCandidate, selectComponents,
// sampleMinibatch, proposeNewTexts, reflectionPromptTemplate) and what they are handed: the pool
// as it stands and the run's seeded random source. Types only; the root entry re-exports them.
import type { Candidate, ReflectiveDataset } from '../core/adapter.js';

/**
 * The run's seeded random source, as strategy hooks receive it. Draw only from it (never
 * Math.random()) and only while the hook runs: then a batched run stays a function of its seed.
 */
export interface RandomSource {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** One of `items`, uniformly. */
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy. */
  shuffle<T>(items: readonly T[]): T[];
}

/** What selectCandidate sees of the pool as it stands at the start of the step. Read-only. */
export interface PoolView {
  /** The step (batched) or proposal (async) number being planned. */
  step: number;
  /** The pool, by index (0 is the seed). */
  candidates: readonly Candidate[];
  /** Mean valset score per candidate. */
  valScores: readonly number[];
  /** valSubscores[i][j] = score of candidate i on valset example j. */
  valSubscores: ReadonlyArray<readonly number[]>;
  /** parents[i] = pool indices of candidate i's parents ([] for the seed). */
  parents: ReadonlyArray<readonly number[]>;
  /** Per front (a valset example for frontType 'instance'): the candidates best on it. */
  fronts: ReadonlyArray<readonly number[]>;
}

/**
 * A reflection prompt template: a string with the placeholders `<curr_instructions>` (the
 * component's current text) and `<inputs_outputs_feedback>` (its reflective records as markdown),
 * both required (gepa 0.1.4's names `<curr_param>` and `<side_info>` work too); or a function of
 * the component's name, current text and records.
 */
export type ReflectionPromptTemplate =
  | string
  | ((component: string, currentText: string, records: ReadonlyArray<Record<string, unknown>>) => string);

/** gepa's custom candidate proposer: new text per component (only components to update), in place of the reflection LM. */
export type ProposeNewTexts = (
  candidate: Candidate,
  reflectiveDataset: ReflectiveDataset,
  componentsToUpdate: readonly string[],
) => Record<string, string> | Promise<Record<string, string>>;

/** Parent selection: the index of a pool candidate. Synchronous. */
export type SelectCandidate = (pool: PoolView, rng: RandomSource) => number;

/** Which components a proposal rewrites: a non-empty list of distinct component names. Synchronous. */
export type SelectComponents = (
  input: { candidate: Candidate; candidateIndex: number; componentNames: readonly string[]; step: number; task: number },
  rng: RandomSource,
) => readonly string[];

/** A proposal's minibatch: 1 to minibatchSize trainset indices in [0, trainsetSize). Synchronous. */
export type SampleMinibatch = (input: { trainsetSize: number; minibatchSize: number; step: number; task: number }, rng: RandomSource) => readonly number[];
