// What a refiner is to the evaluation service (optimizeAnything's `refiner`, gepa's
// RefinerConfig): after an evaluation, a model proposes a refined candidate from what the
// evaluation said; the refined candidate is evaluated, and refining goes on while it improves.
// The evaluation answered keeps its own candidate's score; the refined candidates that did
// better ride along (Evaluation.refined), candidates of their own with their own scores. The
// service runs each step as ordinary work (a reflection call, a metric call: slots, dollars, the
// journal); this interface says what to ask and what to keep.
import type { SlotAwareLanguageModel } from '../lm/slotAwareModel.js';
import type { Candidate, Evaluation } from '../gepa/core/adapter.js';

/** One try: the original evaluation first, then each refinement (its evaluation, or why it has none). */
export interface RefinementAttempt {
  candidate: Candidate;
  evaluation?: Evaluation;
  error?: string;
}

/** The refiner as the evaluation service runs it: its model, its prompt, how a reply is read and which attempt is kept. */
export interface Refinement {
  /** Refinements tried per evaluation at most; one evaluation then makes up to 1 + maxRefinements metric calls. */
  maxRefinements: number;
  /** The refiner model, run in the worker slots. */
  lm: SlotAwareLanguageModel;
  /** The refiner's prompt after these attempts (the first is the original evaluation). */
  prompt(attempts: readonly RefinementAttempt[]): string;
  /** The refined candidate a reply holds, or why it holds none. */
  read(reply: string, original: Candidate): Candidate | { error: string };
  /** The evaluation answered: the original's, its score its own, with the attempts and the better refinements (Evaluation.refined). */
  combine(attempts: readonly RefinementAttempt[]): Evaluation;
}
