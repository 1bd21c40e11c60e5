// What a proposer asks for, as actions: its evaluations, reflections (or one call of the user's
// proposer) and prefetched rebase gates from the evaluator (its inbox, evaluatorInbox.ts), and
// the reflective dataset from the adapter's builder. Which evaluation, of what and on which
// examples is the domain's answer (evaluationPlan.ts); these actions only address and send it.
import type { CallOrigin } from '../src/evaluation/callRecord.js';
import { evaluationAsk, prefetchAsks, reflectionRequestId, type EvaluationName } from '../src/gepa/proposer/evaluationPlan.js';
import { startRebaseGate } from '../src/gepa/proposer/rebaseGate.js';
import { minibatchResults } from '../src/gepa/proposer/reflectiveDataset.js';
import { startReflection } from '../src/gepa/reflection/reflectionRun.js';
import { siblingPrompt } from '../src/gepa/reflection/siblingPrompt.js';
import type { EvaluatorRef, EvaluatorReply, EvaluatorRequest, ReplyTo } from './protocol.js';
import { evaluatorInbox } from './evaluatorInbox.js';
import { keep, proposerSetup, type ProposerContext } from './proposer.setup.js';

/** Every request names this proposal, so telemetry can nest its calls under the proposal's span. */
const originOf = (context: ProposerContext): CallOrigin => ({ step: context.step, task: context.task });

/** The action that asks the evaluator for one of the proposal's evaluations (which, of what, on which examples: evaluationPlan.ts). */
export const evaluate = (what: EvaluationName) =>
  proposerSetup.sendTo<EvaluatorRef>(evaluatorInbox, ({ context, self }): EvaluatorRequest => ({ type: 'evaluate', replyTo: self, ...evaluationAsk(what, context), origin: originOf(context) }));

/**
 * The adapter's dataset builder, which may be async. Its promise reports back with an event
 * rather than through an invoked promise actor: one actor fewer per proposal is ~15% of the
 * orchestration cost of an async run with a small valset, and a proposer stopped meanwhile
 * simply drops the late event (sends to a stopped actor are ignored).
 */
export const buildDataset = proposerSetup.createAction(({ context, self }) => {
  const results = minibatchResults(context.minibatch, context.examples, context.parentEvaluations);
  Promise.resolve()
    .then(() => context.buildDataset(context.parent, results, context.components))
    .then(
      // `self.send` is XState's public path: it records no sender (see machines/README.md).
      (dataset): void => self.send({ type: 'dataset.built', next: startReflection({ dataset }, context) }),
      (error: unknown): void => self.send({ type: 'dataset.failed', next: startReflection({ error }, context) }),
    );
});

/** The reflection round's requests (the strategy's: prompts for the reflection model, calls of the user's proposer), all at once. */
function reflectionRequests(context: ProposerContext, self: ReplyTo<EvaluatorReply>): EvaluatorRequest[] {
  const origin = originOf(context);
  return (context.reflecting?.asks ?? []).map((ask, i): EvaluatorRequest => {
    const requestId = reflectionRequestId(i);
    if (ask.kind === 'propose') return { type: 'propose', requestId, replyTo: self, candidate: ask.candidate, dataset: ask.dataset, components: ask.components, origin };
    return { type: 'reflect', requestId, replyTo: self, prompt: siblingPrompt(ask.prompt, context.sample ?? 0), origin, ...(ask.content ? { content: ask.content } : {}) };
  });
}

/** The reflection round's requests sent to the evaluator; their replies fill the round's places in any order. */
export const askForReflections = proposerSetup.enqueueActions(({ context, self, system, enqueue }) =>
  reflectionRequests(context, self).forEach((request) => enqueue.sendTo(evaluatorInbox({ system }), request)),
);

/**
 * Told 'rebase.prefetch': evaluate ahead the gate a rebase onto `onto` would face (both sides,
 * counted in `prefetching` until paid); the verdict is still the optimizer's to give.
 */
export const prefetchRebaseGate = proposerSetup.enqueueActions(({ context, event, self, system, enqueue }) => {
  if (event.type !== 'rebase.prefetch') return;
  const { exampleIds } = startRebaseGate(event, context.minibatch, context.parentEvaluations, context.childEvaluations ?? []);
  if (exampleIds.length === 0) return;
  enqueue(keep(() => ({ prefetching: (context.prefetching ?? 0) + 2 })));
  for (const ask of prefetchAsks(event, exampleIds)) enqueue.sendTo(evaluatorInbox({ system }), { type: 'evaluate', replyTo: self, ...ask, origin: originOf(context) } satisfies EvaluatorRequest);
});
