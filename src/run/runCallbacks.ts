// The user's gepa callbacks (OptimizeConfig.callbacks) called from the run's events: a listener
// beside onEvent that keeps what gepa's payloads name and no event carries alone (the pool so
// far, each proposal's parent, minibatch and sums, the front before) and calls each method with
// gepa's fields. A callback that throws, or whose promise rejects, is reported once per callback
// and method as a `warning` run event naming both (the CLI prints it on stderr); it never reaches
// the machines, so the run goes on exactly as without it (gepa logs and goes on), unless failFast:
// then the first one stops the run as a failure (`fail`, which the stop-signal actor turns into a stop).
import { errorMessage } from '../errors/errorMessage.js';
import type { ExampleTable } from '../gepa/core/exampleTable.js';
import type { CallbackRunState, GepaCallbacks } from '../gepa/core/callbacks.js';
import { argmaxMean } from '../gepa/core/scores.js';
import type { Candidate, Evaluation } from '../gepa/core/adapter.js';
import type { OptimizeResult } from '../gepa/core/optimizeResult.js';
import type { RunEvent } from '../gepa/core/runEvent.js';

/** What the callbacks are told that the run's events do not say. */
export interface RunCallbackContext {
  seedCandidate: Candidate;
  table: Pick<ExampleTable<unknown>, 'examples' | 'trainIds' | 'valIds'>;
  /** The run's plain-data settings (onOptimizationStart's `config`). */
  config: Record<string, unknown>;
  maxMetricCalls?: number;
  runDir?: string;
  /** Where a failing callback is reported (the run's listener, this one included). */
  report: (event: RunEvent) => void;
  /** failFast: a failing callback fails the run; told its message once. */
  fail?: (message: string) => void;
}

/** The callbacks as the run calls them: every event, then the result once. */
export interface RunCallbacks {
  onEvent(event: RunEvent): void;
  finish(result: OptimizeResult): void;
  /** failFast: what the first failing callback threw (the run's failure's cause); undefined while none has failed or without failFast. */
  fatalError(): { message: string; error: unknown } | undefined;
}

type Method = keyof GepaCallbacks;
type Payload<M extends Method> = Parameters<GepaCallbacks[M]>[0];

/** One proposal as its events describe it. */
interface TaskFacts {
  parent: number;
  minibatch: readonly number[];
  parentSum?: number;
  childSum?: number;
}

/** One iteration: its proposals started and ended, whether one joined the pool, the merge it is. */
interface IterationFacts {
  started: number;
  ended: number;
  accepted: boolean;
  merge?: { parents: number[]; candidate: Candidate };
}

const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

/** The listener that calls `callbacks` from the run's events (prepareRun puts it beside onEvent). */
export function createRunCallbacks(callbacks: ReadonlyArray<Partial<GepaCallbacks>>, context: RunCallbackContext): RunCallbacks {
  const candidates: Candidate[] = [];
  const parents: number[][] = [];
  const valScores: number[] = [];
  let metricCalls = 0;
  let iteration = 0;
  let iterationsStarted = 0;
  /** The iteration whose proposal was folded last (async folds come while later ones run). */
  let folded = 0;
  let front: number[] = [];
  const iterations = new Map<number, IterationFacts>();
  const tasks = new Map<string, TaskFacts>();
  /** Iterations with an ended proposal since the last fold's budget event. */
  const pending = new Set<number>();
  const reported = new Set<string>();
  const trainPosition = new Map(context.table.trainIds.map((id, i) => [id, i] as const));
  const state = (): CallbackRunState => ({ candidates: [...candidates], parents: parents.map((p) => [...p]), valScores: [...valScores], metricCalls });

  let fatal: { message: string; error: unknown } | undefined;

  function failed(index: number, method: Method, error: unknown): void {
    const key = `${index}:${method}`;
    if (reported.has(key)) return;
    reported.add(key);
    const message = `callbacks[${index}].${method} threw: ${errorMessage(error)}`;
    context.report({ type: 'warning', message });
    if (context.fail && !fatal) {
      fatal = { message: `failFast: ${message}`, error };
      context.fail(fatal.message);
    }
  }

  function call<M extends Method>(method: M, payload: Payload<M>): void {
    callbacks.forEach((callback, index) => {
      const fn = callback[method] as ((event: Payload<M>) => unknown) | undefined;
      if (typeof fn !== 'function') return;
      try {
        const returned = fn.call(callback, payload);
        if (isThenable(returned)) returned.then(undefined, (error: unknown) => failed(index, method, error));
      } catch (error) {
        failed(index, method, error);
      }
    });
  }

  const taskOf = (e: { step: number; task: number }) => tasks.get(`${e.step}/${e.task}`);
  const examplesOf = (ids: readonly number[]) => ids.map((id) => context.table.examples[id]);

  function evaluationEnded(e: Extract<RunEvent, { type: 'evaluation.ended' }>): void {
    const t = taskOf(e);
    const merge = iterations.get(e.step)?.merge;
    if (!t || e.target === 'valset') return;
    if (e.target === 'parent') t.parentSum = e.sum;
    else t.childSum = e.sum;
    const evaluations: readonly Evaluation[] = e.evaluations ?? [];
    const traced = e.target === 'parent';
    call('onEvaluationEnd', {
      iteration: e.step,
      candidateIdx: traced ? t.parent : null,
      scores: evaluations.map((v) => v.score),
      hasTrajectories: traced && evaluations.some((v) => v.trace !== undefined),
      parentIds: traced ? (parents[t.parent] ?? []) : (merge?.parents ?? [t.parent]),
      outputs: evaluations.map((v) => v.output),
      trajectories: traced ? evaluations.map((v) => v.trace) : null,
      objectiveScores: evaluations.some((v) => v.objectives) ? evaluations.map((v) => v.objectives ?? {}) : null,
      isSeedCandidate: traced && t.parent === 0,
    });
    if (merge && e.target === 'child') call('onMergeAttempted', { iteration: e.step, parentIds: merge.parents, mergedCandidate: merge.candidate });
  }

  /** A candidate of the pool (already recorded) evaluated on the valset: the seed, or one that joined. */
  function valsetEvaluated(at: number, index: number, subscores: readonly number[], averageScore: number, parentIds: number[]): void {
    call('onValsetEvaluated', {
      iteration: at,
      candidateIdx: index,
      candidate: candidates[index] as Candidate,
      scoresByValId: Object.fromEntries(subscores.map((s, j) => [j, s])),
      averageScore,
      numExamplesEvaluated: subscores.length,
      totalValsetSize: context.table.valIds.length,
      parentIds,
      isBestProgram: argmaxMean(valScores) === index,
      outputsByValId: null,
    });
  }

  function candidateAccepted(e: Extract<RunEvent, { type: 'candidate.accepted' }>): void {
    candidates[e.index] = e.candidate ?? {};
    parents[e.index] = e.parents;
    valScores[e.index] = e.valScore;
    const at = e.step ?? iteration;
    valsetEvaluated(at, e.index, e.valSubscores ?? [], e.valScore, e.parents);
    const merge = iterations.get(at)?.merge;
    const newScore = (e.step === undefined ? undefined : taskOf({ step: e.step, task: e.task ?? 0 })?.childSum) ?? 0;
    if (merge) call('onMergeAccepted', { iteration: at, newCandidateIdx: e.index, parentIds: e.parents });
    call('onCandidateAccepted', { iteration: at, newCandidateIdx: e.index, newScore, parentIds: e.parents });
  }

  /** After a fold (its budget event): the iterations whose proposals have all ended. */
  function endIterations(): void {
    for (const step of [...pending].sort((a, b) => a - b)) {
      const facts = iterations.get(step);
      if (!facts || facts.ended < facts.started) continue;
      pending.delete(step);
      call('onIterationEnd', { iteration: step, state: state(), proposalAccepted: facts.accepted });
    }
  }

  const handlers: { [T in RunEvent['type']]?: (event: Extract<RunEvent, { type: T }>) => void } = {
    'run.started': () => call('onOptimizationStart', { seedCandidate: context.seedCandidate, trainsetSize: context.table.trainIds.length, valsetSize: context.table.valIds.length, config: context.config }),
    'seed.evaluated': (e) => {
      candidates[0] = context.seedCandidate;
      parents[0] = [];
      valScores[0] = e.valScore;
      front = [0];
      valsetEvaluated(0, 0, e.valSubscores, e.valScore, []);
    },
    'proposal.started': (e) => {
      let facts = iterations.get(e.step);
      if (!facts) {
        facts = { started: 0, ended: 0, accepted: false, ...(e.merge ? { merge: e.merge } : {}) };
        iterations.set(e.step, facts);
        iteration = e.step;
        iterationsStarted++;
        call('onStateSaved', { iteration: e.step, runDir: context.runDir ?? null });
        call('onIterationStart', { iteration: e.step, state: state() });
      }
      facts.started++;
      tasks.set(`${e.step}/${e.task}`, { parent: e.merge?.parents[0] ?? 0, minibatch: [] });
    },
    'candidate.selected': (e) => {
      const t = taskOf(e);
      if (t) t.parent = e.parent;
      // A merge has two parents and no draw of one: gepa announces it as a merge instead.
      if (iterations.get(e.step)?.merge) return;
      call('onCandidateSelected', { iteration: e.step, candidateIdx: e.parent, candidate: candidates[e.parent] ?? {}, score: valScores[e.parent] ?? 0 });
    },
    'minibatch.sampled': (e) => {
      const t = taskOf(e);
      if (t) t.minibatch = e.ids;
      if (iterations.get(e.step)?.merge) return;
      call('onMinibatchSampled', { iteration: e.step, minibatchIds: e.ids.map((id) => trainPosition.get(id) ?? id), trainsetSize: context.table.trainIds.length });
    },
    'evaluation.started': (e) => {
      const t = taskOf(e);
      if (!t || e.target === 'valset') return;
      const traced = e.target === 'parent';
      call('onEvaluationStart', {
        iteration: e.step,
        candidateIdx: traced ? t.parent : null,
        batchSize: t.minibatch.length,
        captureTraces: traced,
        parentIds: traced ? (parents[t.parent] ?? []) : (iterations.get(e.step)?.merge?.parents ?? [t.parent]),
        inputs: examplesOf(t.minibatch),
        isSeedCandidate: traced && t.parent === 0,
      });
    },
    'evaluation.ended': evaluationEnded,
    'evaluation.skipped': (e) => {
      const t = taskOf(e);
      const parent = t?.parent ?? 0;
      call('onEvaluationSkipped', { iteration: e.step, candidateIdx: parent, reason: e.reason, scores: e.scores ?? null, isSeedCandidate: parent === 0 });
    },
    'reflection.started': (e) => {
      const parent = taskOf(e)?.parent ?? 0;
      call('onReflectiveDatasetBuilt', { iteration: e.step, candidateIdx: parent, components: e.components, dataset: e.dataset });
      call('onProposalStart', { iteration: e.step, parentCandidate: candidates[parent] ?? {}, components: e.components, reflectiveDataset: e.dataset });
    },
    'reflection.ended': (e) => call('onProposalEnd', { iteration: e.step, newInstructions: e.newTexts, prompts: e.prompts ?? {}, rawLmOutputs: {} }),
    'proposal.ended': (e) => {
      const facts = iterations.get(e.step);
      // A proposal a planning hook failed never started: it is no iteration's.
      if (!facts || !taskOf(e)) return;
      facts.ended++;
      folded = e.step;
      if (e.outcome === 'accepted') facts.accepted = true;
      pending.add(e.step);
    },
    'candidate.accepted': candidateAccepted,
    'candidate.rejected': (e) => {
      const merge = iterations.get(e.step)?.merge;
      if (merge) return call('onMergeRejected', { iteration: e.step, parentIds: merge.parents, reason: e.reason });
      const t = taskOf(e);
      call('onCandidateRejected', { iteration: e.step, oldScore: t?.parentSum ?? 0, newScore: t?.childSum ?? 0, reason: e.reason });
    },
    'front.updated': (e) => {
      const next = e.front ?? [];
      // The seed's front is the start, not an update (gepa announces updates from the first addition on).
      if (candidates.length <= 1) return void (front = next);
      const displaced = front.filter((c) => !next.includes(c));
      front = next;
      call('onParetoFrontUpdated', { iteration: folded, newFront: next, displacedCandidates: displaced });
    },
    'budget.updated': (e) => {
      const delta = e.metricCalls - metricCalls;
      metricCalls = e.metricCalls;
      if (delta > 0) {
        const remaining = context.maxMetricCalls === undefined ? null : Math.max(0, context.maxMetricCalls - e.metricCalls);
        call('onBudgetUpdated', { iteration, metricCallsUsed: e.metricCalls, metricCallsDelta: delta, metricCallsRemaining: remaining });
      }
      endIterations();
    },
    error: (e) => call('onError', { iteration, exception: new Error(e.message), willContinue: e.systemic !== true }),
    'run.ended': () => endIterations(),
  };

  return {
    onEvent(event) {
      const handle = handlers[event.type] as ((e: RunEvent) => void) | undefined;
      handle?.(event);
    },
    finish(result) {
      call('onOptimizationEnd', { bestCandidateIdx: result.bestIndex, totalIterations: iterationsStarted, totalMetricCalls: result.metricCalls, finalState: result });
    },
    fatalError: () => fatal,
  };
}
