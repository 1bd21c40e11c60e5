// The run events a proposer tells the run's listener itself (`ProposerInput.onEvent`): evaluation
// started/ended/skipped, reflection started/ended, and errors. Several come per proposal, so they
// go straight to the listener rather than through the optimizer's mailbox. Each export is an
// action the state chart (proposer.machine.ts) names on a transition or an entry.
import { madeChild } from '../src/gepa/proposer/evaluationPlan.js';
import { reflectionOutcome } from '../src/gepa/reflection/reflectionRun.js';
import { evaluationStartedEvent, parentSkippedEvent, taskErrorEvent, type TaskOf } from '../src/gepa/proposer/taskEvents.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import type { ProposerContext, ProposerEvent } from './proposer.setup.js';

/** An action that reports a run event about this task straight to the run's listener. */
function tell(make: (context: ProposerContext, task: TaskOf) => RunEvent) {
  return ({ context }: { context: ProposerContext }) => context.onEvent?.(make(context, { step: context.step, task: context.task }));
}
/** An error run event: a request this task made failed (the message names the task). */
const tellError = (context: ProposerContext, what: string) => context.onEvent?.(taskErrorEvent(context, what));

const skipReason = (context: ProposerContext) => (context.outcome?.status === 'skipped' ? context.outcome.reason : '');

/** An evaluation of the parent, the child or the valset was asked for. */
export const evaluationStarted = (target: 'parent' | 'child' | 'valset') => tell((_, task) => evaluationStartedEvent(target, task));
/** The valset evaluation starts (a race reports it once, at its first chunk). */
export const valsetStarted = evaluationStarted('valset');

/** The parent's evaluation said go on: its sum and evaluations, reported. */
export const parentEnded = tell((context, task) => ({ type: 'evaluation.ended', target: 'parent', sum: context.parentSum ?? 0, evaluations: context.parentEvaluations, ...task }));
/** The parent's evaluation said skip: why, and the parent's scores. */
export const parentSkipped = tell((context, task) => parentSkippedEvent(skipReason(context), context.parentEvaluations, task));

/** The child's minibatch sum, reported once it is judged. */
export const childJudged = tell((context, task) => {
  // A rebased child is judged on its gate's examples.
  const evaluations = context.rebase ? context.rebase.childEvaluations : context.childEvaluations;
  const sum = context.outcome?.status === 'judged' ? context.outcome.verdict.childSum : 0;
  return { type: 'evaluation.ended', target: 'child', sum, ...(evaluations ? { evaluations } : {}), ...task };
});

/** The reflection starts (its first round): on which components, from which reflective dataset. */
const tellReflectionStarted = tell((context, task) => ({ type: 'reflection.started', components: context.components, dataset: context.dataset ?? {}, ...task }));
export const reflectionStarted = ({ context }: { context: ProposerContext }) => (context.reflecting?.round === 0 ? tellReflectionStarted({ context }) : undefined);
/** The reflection made a child: what each component became. */
export const reflectionEnded = tell((context, task) => ({ type: 'reflection.ended', ...reflectionOutcome(context.reflecting, context.parent, madeChild(context, 'the reflection ended').candidate, context.components), ...task }));

type Step = { context: ProposerContext; event: ProposerEvent };
/** The user's proposer (proposeNewTexts) failed: an error event; its components get no text. */
export const proposeFailed = ({ context, event }: Step) => (event.type === 'proposed' && !event.ok ? tellError(context, `proposeNewTexts failed: ${event.error}`) : undefined);
/** A reflection call failed: an error event; its component gets no text. */
export const reflectionFailed = ({ context, event }: Step) => (event.type === 'reflected' && !event.ok ? tellError(context, `reflection failed: ${event.error}`) : undefined);
/** The evaluator could not serve a request (aborted, or refused by the dollar budget). */
export const requestFailed = ({ context, event }: Step) => (event.type === 'evaluator.failed' ? tellError(context, event.error) : undefined);
