// The adapter around optimizeAnything's evaluator: each metric call runs the user's evaluator in
// its own log context (log() lines join that call's side information), hands it the candidate as
// the user gave it (a string for a string seed) and, in single-task search, no example; reads its
// answer into an Evaluation whose output is the side information and whose objectives are its
// `scores`; keeps the best evaluations per example for `ctx.state`; and makes the reflection's
// records from the side information.
import { errorMessage } from '../../errors/errorMessage.js';
import { describeThrown, describeValue } from '../../errors/describeValue.js';
import { caughtFailure } from '../../evaluation/failureTally.js';
import type { Adapter, Candidate, EvalContext, EvaluatedExample, Evaluation, ReflectiveDataset } from '../../gepa/core/adapter.js';
import type { SearchMode } from '../../settingValues.js';
import { BEST_EVALUATIONS_KEPT, STRING_COMPONENT, type BatchEvaluator, type Evaluator, type EvaluatorState, type PastEvaluation } from './anythingOptions.js';
import { withEvaluatorLog } from './evaluatorLog.js';
import { withCapturedStdio, withPrinted, type PrintedText } from './stdioCapture.js';
import { objectiveScores, readEvaluatorResult, reflectionRecord, withLog, type SideInfo } from './sideInfo.js';

export interface AnythingAdapterOptions<Example> {
  /** The user's evaluator, one example per call; or `batchEvaluator`, many per call (exactly one of them). */
  evaluator?: Evaluator<string | Candidate, Example | undefined>;
  batchEvaluator?: BatchEvaluator<string | Candidate, Example>;
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

/** What one call of the user's function gave: its outcome, with its log() lines and (captured) printed text. */
type Called<T> = Awaited<ReturnType<typeof withEvaluatorLog<T>>> & { printed: PrintedText | undefined };

export function createAnythingAdapter<Example>(options: AnythingAdapterOptions<Example>): Adapter<Example | undefined> {
  const { evaluator, batchEvaluator, mode, stringCandidate, failFast, captureStdio = false } = options;
  // Per example (by identity, as the example table), the best evaluations so far, best first.
  const best = new Map<unknown, PastEvaluation[]>();
  const remember = (example: unknown, past: PastEvaluation) => {
    const kept = [...(best.get(example) ?? []), past].sort((a, b) => b.score - a.score).slice(0, BEST_EVALUATIONS_KEPT);
    best.set(example, kept);
  };
  const stateOf = (example: unknown): EvaluatorState => ({ bestEvaluations: [...(best.get(example) ?? [])] });
  const given = (candidate: Candidate) => (stringCandidate ? (candidate[STRING_COMPONENT] ?? '') : candidate);
  // The user's function in its own log context (and stdio capture, when the run has it).
  const called = async <T>(call: () => T | Promise<T>): Promise<Called<T>> => {
    const logged = () => withEvaluatorLog(call);
    if (!captureStdio) return { ...(await logged()), printed: undefined };
    const { value, printed } = await withCapturedStdio(logged);
    return { ...value, printed };
  };
  /** The failed call for what the user's function threw (raised instead under failFast, or once the run stops). */
  const thrown = (result: Called<unknown>, error: unknown, who: string, signal: AbortSignal): Evaluation => {
    if (failFast || signal.aborted) throw error;
    const message = errorMessage(error);
    // A failed call keeps what the evaluator logged before it threw: the reflection reads why.
    return caughtFailure({ score: 0, output: withPrinted(withLog({ error: message }, result.lines), result.printed), feedback: `The ${who} threw ${describeThrown(error)}`, failure: { kind: 'adapter', message } }, error);
  };
  const invalid = (sideInfo: SideInfo, problem: string): Evaluation => ({ score: 0, output: { ...sideInfo, error: problem }, feedback: problem, failure: { kind: 'invalid-score', message: problem } });
  /** One example's answer as its evaluation: read, remembered for ctx.state, its objective scores pulled out. */
  const scored = (example: unknown, answer: unknown, result: Called<unknown>, components: readonly string[], who: string, where: string): Evaluation => {
    const read = readEvaluatorResult(answer, result.lines, who, where);
    read.sideInfo = withPrinted(read.sideInfo, result.printed);
    if (read.problem !== undefined) return invalid(read.sideInfo, read.problem);
    remember(example, { score: read.score, sideInfo: read.sideInfo });
    const objectives = objectiveScores(read.sideInfo, components);
    return { score: read.score, output: read.sideInfo, ...(objectives ? { objectives } : {}) };
  };

  /** One call of the batchEvaluator for the examples: one evaluation per example, each failed alone on a bad answer, all on a throw. */
  async function evaluateBatch(candidate: Candidate, examples: readonly (Example | undefined)[], ctx: EvalContext): Promise<Evaluation[]> {
    const evaluate = batchEvaluator as BatchEvaluator<string | Candidate, Example | undefined>;
    const states = examples.map(stateOf);
    const result = await called(() => evaluate(given(candidate), examples, { signal: ctx.signal, states }));
    const { outcome } = result;
    if (!outcome.ok) {
      return examples.map(() => thrown(result, outcome.error, 'batchEvaluator', ctx.signal));
    }
    const answers: unknown = outcome.value;
    const count = examples.length;
    if (!Array.isArray(answers) || answers.length !== count) {
      const got = Array.isArray(answers) ? `${answers.length} result${answers.length === 1 ? '' : 's'}` : describeValue(answers);
      const problem = `the batchEvaluator returned ${got} for ${count} example${count === 1 ? '' : 's'}, not one number or { score, sideInfo } per example`;
      return examples.map(() => invalid(withPrinted(withLog({}, result.lines), result.printed), problem));
    }
    const components = Object.keys(candidate);
    return examples.map((example, i) => scored(example, answers[i], result, components, 'batchEvaluator', count === 1 ? '' : ` for example ${i + 1} of ${count}`));
  }

  return {
    async evaluate(candidate: Candidate, example: Example | undefined, ctx: EvalContext): Promise<Evaluation> {
      // A batchEvaluator scores one example as a batch of one.
      if (!evaluator) return (await evaluateBatch(candidate, [example], ctx))[0] as Evaluation;
      const shown = mode === 'single-task' ? undefined : example;
      const state = stateOf(example);
      const result = await called(() => evaluator(given(candidate), shown, { signal: ctx.signal, state }));
      const { outcome } = result;
      if (!outcome.ok) return thrown(result, outcome.error, 'evaluator', ctx.signal);
      return scored(example, outcome.value, result, Object.keys(candidate), 'evaluator', '');
    },
    ...(batchEvaluator ? { evaluateBatch } : {}),
    makeReflectiveDataset(_candidate: Candidate, results: ReadonlyArray<EvaluatedExample<Example | undefined>>, components: readonly string[]): ReflectiveDataset {
      return Object.fromEntries(components.map((c) => [c, results.map(({ evaluation }) => reflectionRecord(evaluation.score, sideInfoOf(evaluation), c))]));
    },
  };
}
