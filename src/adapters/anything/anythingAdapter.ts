// The adapter around optimizeAnything's evaluator: each metric call runs the user's evaluator in
// its own log context (log() lines join that call's side information), hands it the candidate as
// the user gave it (a string for a string seed) and, in single-task search, no example; reads its
// answer into an Evaluation whose output is the side information and whose objectives are its
// `scores`; keeps the best evaluations per example for `ctx.state`; and makes the reflection's
// records from the side information.
import { errorMessage } from '../../errors/errorMessage.js';
import { describeThrown } from '../../errors/describeValue.js';
import { caughtFailure } from '../../evaluation/failureTally.js';
import type { Adapter, Candidate, EvalContext, EvaluatedExample, Evaluation, ReflectiveDataset } from '../../gepa/core/adapter.js';
import type { SearchMode } from '../../settingValues.js';
import { BEST_EVALUATIONS_KEPT, STRING_COMPONENT, type Evaluator, type PastEvaluation } from './anythingOptions.js';
import { withEvaluatorLog } from './evaluatorLog.js';
import { withCapturedStdio, withPrinted } from './stdioCapture.js';
import { objectiveScores, readEvaluatorResult, reflectionRecord, withLog, type SideInfo } from './sideInfo.js';

export interface AnythingAdapterOptions<Example> {
  evaluator: Evaluator<string | Candidate, Example | undefined>;
  mode: SearchMode;
  /** The seed was a string: the evaluator gets the text of the one component. */
  stringCandidate: boolean;
  /** Raise the evaluator's error (optimize()'s failFast) instead of recording a failed call. */
  failFast: boolean;
  /** What the evaluator prints joins the call's side information (stdioCapture.ts; the run installs the capture). */
  captureStdio?: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The side information an evaluation carries (a failed call the runtime recorded has only its feedback). */
export function sideInfoOf(evaluation: Evaluation): SideInfo {
  if (isRecord(evaluation.output)) return evaluation.output;
  return evaluation.feedback === undefined ? {} : { error: evaluation.feedback };
}

export function createAnythingAdapter<Example>(options: AnythingAdapterOptions<Example>): Adapter<Example | undefined> {
  const { evaluator, mode, stringCandidate, failFast, captureStdio = false } = options;
  // Per example (by identity, as the example table), the best evaluations so far, best first.
  const best = new Map<unknown, PastEvaluation[]>();
  const remember = (example: unknown, past: PastEvaluation) => {
    const kept = [...(best.get(example) ?? []), past].sort((a, b) => b.score - a.score).slice(0, BEST_EVALUATIONS_KEPT);
    best.set(example, kept);
  };
  return {
    async evaluate(candidate: Candidate, example: Example | undefined, ctx: EvalContext): Promise<Evaluation> {
      const components = Object.keys(candidate);
      const given = stringCandidate ? (candidate[STRING_COMPONENT] ?? '') : candidate;
      const state = { bestEvaluations: [...(best.get(example) ?? [])] };
      const shown = mode === 'single-task' ? undefined : example;
      const call = () => withEvaluatorLog(() => evaluator(given, shown, { signal: ctx.signal, state }));
      const { value: logged, printed } = captureStdio ? await withCapturedStdio(call) : { value: await call(), printed: undefined };
      const { outcome } = logged;
      // The log() lines, and what the call printed when the run captures it.
      const withDiagnostics = (sideInfo: SideInfo) => withPrinted(withLog(sideInfo, logged.lines), printed);
      if (!outcome.ok) {
        if (failFast || ctx.signal.aborted) throw outcome.error;
        const message = errorMessage(outcome.error);
        // A failed call keeps what the evaluator logged before it threw: the reflection reads why.
        return caughtFailure({ score: 0, output: withDiagnostics({ error: message }), feedback: `The evaluator threw ${describeThrown(outcome.error)}`, failure: { kind: 'adapter', message } }, outcome.error);
      }
      const read = readEvaluatorResult(outcome.value, logged.lines);
      read.sideInfo = withPrinted(read.sideInfo, printed);
      if (read.problem !== undefined) {
        return { score: 0, output: { ...read.sideInfo, error: read.problem }, feedback: read.problem, failure: { kind: 'invalid-score', message: read.problem } };
      }
      remember(example, { score: read.score, sideInfo: read.sideInfo });
      const objectives = objectiveScores(read.sideInfo, components);
      return { score: read.score, output: read.sideInfo, ...(objectives ? { objectives } : {}) };
    },
    makeReflectiveDataset(_candidate: Candidate, results: ReadonlyArray<EvaluatedExample<Example | undefined>>, components: readonly string[]): ReflectiveDataset {
      return Object.fromEntries(components.map((c) => [c, results.map(({ evaluation }) => reflectionRecord(evaluation.score, sideInfoOf(evaluation), c))]));
    },
  };
}
