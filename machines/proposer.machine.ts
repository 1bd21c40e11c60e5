// The proposer: one reflective proposal's life. Evaluate the parent on the task's minibatch with
// traces, build the reflective dataset, ask the reflection LM for each chosen component
// (concurrently), evaluate the child on the same minibatch, report the verdict, and, when the
// optimizer grants it, evaluate the child on the valset. A merge proposal is a proposer too: it
// starts from a ready child and shares the tail (verdict, grant, valset). It holds no randomness
// and no rule: each stage asks the domain (src/gepa/proposer/) and assigns its answer.
import { assign, enqueueActions, not, sendParent, sendTo, setup, type ActorSystem } from 'xstate';
import type { CallOrigin } from '../src/evaluation/evaluationService.js';
import { addSpend, isAccepted, NOTHING_SPENT, valsetScoresOf, type Proposal, type ProposalSpend } from '../src/gepa/core/proposal.js';
import { hashedChild, judgeChildOutcome, readReflection, type ComponentReply } from '../src/gepa/proposer/childCandidate.js';
import { componentOfReply, evaluationAsk, isPrefetchRequestId, madeChild, prefetchAsks, rebaseSideOf, reflectionRequestId, type EvaluationName } from '../src/gepa/proposer/evaluationPlan.js';
import { afterDataset, afterParentEvaluation, afterReflection, type ReflectionStart, type SkipOrGoOn } from '../src/gepa/proposer/proposalSkips.js';
import { rebaseGateAfter, startRebaseGate, type RebaseGateRun } from '../src/gepa/proposer/rebaseGate.js';
import { readProposedTexts, reflectionOutcome, type ReflectionWork } from '../src/gepa/proposer/reflectionStrategy.js';
import { minibatchResults } from '../src/gepa/proposer/reflectiveDataset.js';
import { raceAfterChunk, raceResult, startRace, type ValsetRaceRun } from '../src/gepa/proposer/valsetRaceRun.js';
import type { Evaluation, ReflectiveDataset, RunEvent } from '../src/types.js';
import type { EvaluatorRef, EvaluatorReply, EvaluatorRequest, ProposerDecision, ProposerInput, ProposalUpdate, ReplyTo } from './protocol.js';

export type { ProposerInput };

/** The input, the work in progress (each stage's domain answer), and the parts of the proposal's record it fills in. */
export interface ProposerContext extends ProposerInput, Pick<Proposal, 'outcome' | 'child' | 'valset' | 'valsetStop'> {
  parentEvaluations: Evaluation[];
  /** The parent's minibatch sum, once the parent's evaluation said go on. */
  parentSum?: number;
  /** The child's evaluations on the minibatch, once judged there. */
  childEvaluations?: Evaluation[];
  dataset?: ReflectiveDataset;
  /** What the evaluator is asked for: the reflection prompts, or the user's proposer. */
  work?: ReflectionWork;
  /** Per chosen component: the new text, or why there is none. */
  replies: Array<ComponentReply | undefined>;
  childHash?: string;
  /** Set when told to rebase: the gate's candidate, examples, evaluations and outcome. */
  rebase?: RebaseGateRun;
  /** Set when the valset evaluation is a race. */
  race?: ValsetRaceRun;
  /** Replies still to come for a rebase gate evaluated ahead ('rebase.prefetch'): paid for when they come, before the proposal reports its end. */
  prefetching?: number;
  /** Set once 'proposal.finished' is sent. */
  reported?: boolean;
  spend: ProposalSpend;
}

/** The dataset builder's answer read by the domain (sent by the proposer to itself): go on to reflect, or skip. */
type DatasetEvent = { type: 'dataset.built' | 'dataset.failed'; next: ReflectionStart };

export type ProposerEvent = EvaluatorReply | ProposerDecision | DatasetEvent;

/** A reply to a rebase gate evaluated ahead (search/gatePrefetch.ts): only paid for; the real gate finds it in the evaluation cache. */
const isPrefetchReply = (event: ProposerEvent): boolean => (event.type === 'evaluated' || event.type === 'evaluator.failed') && isPrefetchRequestId(event.requestId);

/** The evaluator the requests go to; the optimizer starts it before any proposer. */
function evaluatorIn({ system }: { system: ActorSystem<any> }): EvaluatorRef {
  const evaluator: EvaluatorRef | undefined = system.get('evaluator');
  if (!evaluator) throw new Error("proposer: no actor with systemId 'evaluator' in the system");
  return evaluator;
}

/** Every request names this proposal, so telemetry can nest its calls under the proposal's span. */
const originOf = (context: ProposerContext): CallOrigin => ({ step: context.step, task: context.task });

/** The action that asks the evaluator for one of the proposal's evaluations (which, of what, on which examples: evaluationPlan.ts). */
const evaluate = (what: EvaluationName) =>
  sendTo<ProposerContext, ProposerEvent, undefined, EvaluatorRef, ProposerEvent>(evaluatorIn, ({ context, self }): EvaluatorRequest => ({ type: 'evaluate', replyTo: self, ...evaluationAsk(what, context), origin: originOf(context) }));

/** The reflection work's requests: one call of the user's proposer, or one reflection per prompt (concurrently). */
function reflectionRequests(context: ProposerContext, self: ReplyTo<EvaluatorReply>): EvaluatorRequest[] {
  const { work, parent, components } = context;
  const origin = originOf(context);
  if (work?.kind === 'custom') return [{ type: 'propose', requestId: reflectionRequestId(0), replyTo: self, candidate: parent, dataset: context.dataset ?? {}, components, origin }];
  if (work?.kind !== 'prompts') return [];
  return work.prompts.map((prompt, i) => {
    const content = work.contents?.[i];
    return { type: 'reflect', requestId: reflectionRequestId(i), replyTo: self, prompt, origin, ...(content ? { content } : {}) };
  });
}

type TaskEvent = Extract<RunEvent, { step: number; task: number }>;
/** Which task an event is about: `make` spreads it into the event. */
type TaskOf = Pick<TaskEvent, 'step' | 'task'>;

/**
 * An action that reports a run event about this task straight to the run's listener: these are
 * the fine-grained events (evaluation started/ended/skipped), several per proposal, so they do
 * not travel through the optimizer's mailbox.
 */
function tell(make: (context: ProposerContext, task: TaskOf) => TaskEvent) {
  return ({ context }: { context: ProposerContext }) => context.onEvent?.(make(context, { step: context.step, task: context.task }));
}
/** An error run event: a request this task made failed (the message names the task). */
const tellError = (context: ProposerContext, what: string) => context.onEvent?.({ type: 'error', message: `task ${context.step}/${context.task}: ${what}` });

/** A stage's answer folded into the context: a skip becomes the proposal's outcome, a go-on gives its fields. */
function goOnOrSkip<T extends object>(context: ProposerContext, answer: SkipOrGoOn<T>): Partial<ProposerContext> {
  if (answer.kind === 'skip') return { outcome: { task: context.task, status: 'skipped', reason: answer.reason } };
  const { kind: _, ...fields } = answer;
  return fields;
}
const skipReason = (context: ProposerContext) => (context.outcome?.status === 'skipped' ? context.outcome.reason : '');
const evaluationStarted = (target: 'parent' | 'child' | 'valset') => tell((_, task) => ({ type: 'evaluation.started', target, ...task }));
const valsetStarted = evaluationStarted('valset');
/** The parent's evaluation said go on: its sum and evaluations, reported. */
const parentEnded = tell((context, task) => ({ type: 'evaluation.ended', target: 'parent', sum: context.parentSum ?? 0, evaluations: context.parentEvaluations, ...task }));
/** The child's minibatch sum, reported once it is judged. */
const childJudged = tell((context, task) => {
  // A rebased child is judged on its gate's examples.
  const evaluations = context.rebase ? context.rebase.childEvaluations : context.childEvaluations;
  const sum = context.outcome?.status === 'judged' ? context.outcome.verdict.childSum : 0;
  return { type: 'evaluation.ended', target: 'child', sum, ...(evaluations ? { evaluations } : {}), ...task };
});

/**
 * A reply's charge added to the proposal's spend, as a context patch: each transition that takes
 * a paid reply folds this into its one `assign` (an assign is a copy of the whole context, and
 * XState's cost a proposal is per event and per assign).
 */
const paid = (context: ProposerContext, event: ProposerEvent): Pick<ProposerContext, 'spend'> =>
  event.type === 'evaluated' || event.type === 'reflected' || event.type === 'evaluator.failed' ? { spend: addSpend(context.spend, event) } : { spend: context.spend };

/**
 * A parent evaluation the optimizer asked for (ProposerInput.parentEvaluated) folded into the
 * starting context as the proposer's own reply would have been: its evaluations, its charge and
 * the stage's answer (the optimizer spawns a proposer only when that answer is go on).
 */
function parentEvaluatedBefore(input: ProposerInput, parent: NonNullable<ProposerInput['parentEvaluated']>): Partial<ProposerContext> {
  const answer = afterParentEvaluation(parent.evaluations, input);
  return { parentEvaluations: parent.evaluations, spend: parent.spend, ...(answer.kind === 'go-on' ? { parentSum: answer.parentSum } : {}) };
}

/** The proposal's end is still to report, and no gate evaluated ahead is unpaid. */
const endUnreported = (context: ProposerContext): boolean => !context.prefetching && !context.reported;

/** The evaluator could not serve a request: what it ran is paid, and the proposal ends without a verdict. */
const FAILED_REQUEST = { target: 'failed', actions: 'pay' } as const;
/** A reply to a gate evaluated ahead, in whatever state it comes: paid for, and counted off. */
const PREFETCH_REPLY = { guard: 'prefetchReply', actions: 'prefetchReplied' } as const;

/**
 * One proposal as an XState machine, spawned by the optimizer with a ProposerInput: evaluate the
 * parent on the minibatch, reflect, evaluate the child, report its verdict (ProposalUpdate) and,
 * when told (ProposerDecision), evaluate it on the valset. It talks to the evaluator only.
 */
export const proposerMachine = setup({
  types: {
    context: {} as ProposerContext,
    events: {} as ProposerEvent,
    input: {} as ProposerInput,
  },
  guards: {
    allReflected: ({ context }) => context.replies.every((r) => r !== undefined),
    hasChild: ({ context }) => context.child !== undefined,
    childAccepted: ({ context }) => isAccepted(context.outcome),
    raceGoesOn: ({ context }) => context.race?.next.kind === 'evaluate',
    prefetchReply: ({ event }) => isPrefetchReply(event),
    prefetchSettled: ({ context }) => endUnreported(context),
  },
  actions: {
    /** A prefetched gate's reply: paid for, and counted off. */
    prefetchReplied: assign(({ context, event }) => ({ ...paid(context, event), prefetching: (context.prefetching ?? 1) - 1 })),
    pay: assign(({ context, event }) => paid(context, event)),
    finish: sendParent(({ context: { id, spend, outcome, child, valset, valsetStop, rebase } }): ProposalUpdate => ({
      type: 'proposal.finished', id, spend, outcome, child, valset,
      ...(valsetStop ? { valsetStop } : {}),
      ...(rebase ? { rebaseGateExamples: rebase.exampleIds.length } : {}),
    })),
    /** Only an accepted child needs the optimizer's answer; every other verdict travels in 'finish'. */
    sendJudged: enqueueActions(({ context, enqueue }) => {
      if (!isAccepted(context.outcome)) return;
      enqueue.sendParent({ type: 'proposal.judged', id: context.id, outcome: context.outcome, child: context.child } satisfies ProposalUpdate);
    }),
  },
}).createMachine({
  id: 'proposer',
  context: ({ input }) => ({
    ...input,
    parentEvaluations: [],
    replies: input.components.map(() => undefined),
    spend: NOTHING_SPENT,
    ...(input.merge ? hashedChild(input.merge.child) : {}),
    ...(input.parentEvaluated ? parentEvaluatedBefore(input, input.parentEvaluated) : {}),
  }),
  // A reflective proposal starts here; a merge (no parent evaluation) leaves at once for
  // evaluatingChild, and one whose parent the optimizer evaluated (input.parentEvaluated) for
  // buildingDataset. Not a 'starting' state with eventless exits: each microstep a proposal
  // takes costs CPU, and most proposals are reflective (bench/README.md, "Where the time goes").
  initial: 'evaluatingParent',
  on: { evaluated: PREFETCH_REPLY, 'evaluator.failed': PREFETCH_REPLY },
  states: {
    evaluatingParent: {
      entry: enqueueActions(({ context, enqueue }) => {
        if (context.merge !== undefined || context.parentEvaluated !== undefined) return;
        enqueue(evaluationStarted('parent'));
        enqueue(evaluate('parent'));
      }),
      always: [
        { guard: ({ context }) => context.merge !== undefined, target: 'evaluatingChild' },
        { guard: ({ context }) => context.parentEvaluated !== undefined, target: 'buildingDataset', actions: parentEnded },
      ],
      on: {
        // The stage's answer decides the target on the event itself (no eventless step after it).
        evaluated: [
          {
            guard: ({ context, event }) => afterParentEvaluation(event.evaluations, context).kind === 'skip',
            target: 'finished',
            actions: [
              assign(({ context, event }) => ({ ...paid(context, event), parentEvaluations: event.evaluations, ...goOnOrSkip(context, afterParentEvaluation(event.evaluations, context)) })),
              tell((context, task) => ({ type: 'evaluation.skipped', reason: skipReason(context), scores: context.parentEvaluations.map((e) => e.score), ...task })),
            ],
          },
          {
            target: 'buildingDataset',
            actions: [
              assign(({ context, event }) => ({ ...paid(context, event), parentEvaluations: event.evaluations, ...goOnOrSkip(context, afterParentEvaluation(event.evaluations, context)) })),
              parentEnded,
            ],
          },
        ],
        'evaluator.failed': FAILED_REQUEST,
      },
    },
    // The adapter's dataset builder may be async. Its promise reports back with an event rather
    // than through an invoked promise actor: one actor fewer per proposal is ~15% of the
    // orchestration cost of an async run with a small valset, and a proposer stopped meanwhile
    // simply drops the late event (sends to a stopped actor are ignored).
    buildingDataset: {
      entry: ({ context, self }) => {
        const results = minibatchResults(context.minibatch, context.examples, context.parentEvaluations);
        Promise.resolve()
          .then(() => context.buildDataset(context.parent, results, context.components))
          .then(
            // `self.send` is XState's public path: it records no sender (see machines/README.md).
            (dataset): void => self.send({ type: 'dataset.built', next: afterDataset({ dataset }, context) }),
            (error: unknown): void => self.send({ type: 'dataset.failed', next: afterDataset({ error }, context) }),
          );
      },
      on: {
        'dataset.*': [
          { guard: ({ event }) => event.next.kind === 'skip', target: 'finished', actions: assign(({ context, event }) => goOnOrSkip(context, event.next)) },
          { target: 'reflecting', actions: assign(({ context, event }) => goOnOrSkip(context, event.next)) },
        ],
      },
    },
    reflecting: {
      entry: [
        tell((context, task) => ({ type: 'reflection.started', components: context.components, dataset: context.dataset ?? {}, ...task })),
        enqueueActions(({ context, self, system, enqueue }) => reflectionRequests(context, self).forEach((request) => enqueue.sendTo(evaluatorIn({ system }), request))),
      ],
      on: {
        proposed: {
          actions: [
            ({ context, event }) => (event.ok ? undefined : tellError(context, `proposeNewTexts failed: ${event.error}`)),
            assign({ replies: ({ context, event }) => readProposedTexts(context.components, event.ok ? { ok: true, texts: event.texts } : event) }),
          ],
        },
        reflected: {
          actions: [
            ({ context, event }) => (event.ok ? undefined : tellError(context, `reflection failed: ${event.error}`)),
            assign(({ context, event }) => ({
              ...paid(context, event),
              replies: context.replies.map((r, i) => (i === componentOfReply(event.requestId) ? readReflection(event.ok ? { ok: true, text: event.reply.text } : event) : r)),
            })),
          ],
        },
        'evaluator.failed': FAILED_REQUEST,
      },
      always: {
        guard: 'allReflected',
        target: 'makingChild',
        actions: assign(({ context }) => goOnOrSkip(context, afterReflection(context.parent, context.components, context.replies))),
      },
    },
    makingChild: {
      always: [
        {
          guard: 'hasChild',
          target: 'evaluatingChild',
          actions: tell((context, task) => ({ type: 'reflection.ended', ...reflectionOutcome(context.work, context.parent, madeChild(context, 'the reflection ended').candidate, context.components), ...task })),
        },
        { target: 'finished' },
      ],
    },
    evaluatingChild: {
      entry: [evaluationStarted('child'), evaluate('child')],
      on: {
        evaluated: {
          target: 'awaitingDecision',
          actions: [
            assign(({ context, event }) => ({
              ...paid(context, event),
              childEvaluations: event.evaluations,
              outcome: judgeChildOutcome(context, { childHash: madeChild(context, 'the child was judged').hash, evaluations: event.evaluations }, { against: 'parent', evaluations: context.parentEvaluations }),
            })),
            childJudged,
            'sendJudged',
          ],
        },
        'evaluator.failed': FAILED_REQUEST,
      },
    },
    awaitingDecision: {
      always: { guard: not('childAccepted'), target: 'finished' },
      on: {
        'valset.granted': [
          // With a race, its first chunk (racedChunk reads what comes next).
          { guard: ({ event }) => event.race !== undefined, target: 'racedChunk', actions: [assign({ race: ({ context, event }) => event.race && startRace(event.race, context.valIds) }), valsetStarted] },
          { target: 'evaluatingValset' },
        ],
        'valset.denied': 'finished',
        // Evaluate ahead the gate a rebase onto `onto` would face; the verdict is still the optimizer's to give.
        'rebase.prefetch': {
          actions: enqueueActions(({ context, event, self, system, enqueue }) => {
            const { exampleIds } = startRebaseGate(event, context.minibatch, context.parentEvaluations, context.childEvaluations ?? []);
            if (exampleIds.length === 0) return;
            enqueue.assign({ prefetching: (context.prefetching ?? 0) + 2 });
            for (const ask of prefetchAsks(event, exampleIds)) enqueue.sendTo(evaluatorIn({ system }), { type: 'evaluate', replyTo: self, ...ask, origin: originOf(context) } satisfies EvaluatorRequest);
          }),
        },
        rebase: {
          target: 'evaluatingRebase',
          actions: assign(({ context, event }) => ({ child: event.child, childHash: event.childHash, rebase: startRebaseGate(event, context.minibatch, context.parentEvaluations, context.childEvaluations ?? []) })),
        },
      },
    },
    // Async rebasing: the rebased child and the candidate it was rebased onto, on the examples of
    // its minibatch the gate names (staleChild.ts); the child must beat that candidate there to be
    // worth a valset evaluation.
    evaluatingRebase: {
      entry: [evaluationStarted('child'), evaluate('rebased-child'), evaluate('rebase-onto')],
      on: {
        evaluated: [
          PREFETCH_REPLY,
          {
          actions: assign(({ context, event }) => ({
            ...paid(context, event),
            rebase: context.rebase && rebaseGateAfter(context.rebase, rebaseSideOf(event.requestId), event.evaluations, { ...context, childHash: madeChild(context, 'the rebased child was judged').hash }),
          })),
          },
        ],
        'evaluator.failed': [PREFETCH_REPLY, FAILED_REQUEST],
      },
      always: { guard: ({ context }) => context.rebase?.outcome !== undefined, target: 'awaitingDecision', actions: [assign({ outcome: ({ context }) => context.rebase?.outcome }), childJudged, 'sendJudged'] },
    },
    evaluatingValset: {
      entry: [valsetStarted, evaluate('valset')],
      on: {
        evaluated: [PREFETCH_REPLY, { target: 'finished', actions: assign(({ context, event }) => ({ ...paid(context, event), valset: valsetScoresOf(event.evaluations) })) }],
        'evaluator.failed': [PREFETCH_REPLY, FAILED_REQUEST],
      },
    },
    // A valset race: the next chunk of positions, until the child is complete or has lost.
    racingValset: {
      entry: evaluate('race-chunk'),
      on: {
        evaluated: [PREFETCH_REPLY, { target: 'racedChunk', actions: assign(({ context, event }) => ({ ...paid(context, event), race: context.race && raceAfterChunk(context.race, event.evaluations) })) }],
        'evaluator.failed': [PREFETCH_REPLY, FAILED_REQUEST],
      },
    },
    racedChunk: {
      always: [{ guard: 'raceGoesOn', target: 'racingValset' }, { target: 'finished', actions: assign(({ context }) => (context.race ? raceResult(context.race) : {})) }],
    },
    failed: {
      // The evaluator could not serve a request (aborted, or refused by the dollar budget):
      // report what was spent.
      entry: ({ context, event }) => (event.type === 'evaluator.failed' ? tellError(context, event.error) : undefined),
      always: 'finished',
    },
    // Not a final state: the optimizer stops a proposer when it reports 'proposal.finished', so a
    // done event per proposal would only cost the optimizer one more (empty) macrostep.
    // A gate evaluated ahead is paid for before the end is reported (its replies come to the root's handlers).
    // The end is reported as the state is entered (no eventless step after it) unless gates
    // evaluated ahead are still unpaid; then their last reply's step reports it.
    finished: {
      entry: enqueueActions(({ context, enqueue }) => {
        if (!endUnreported(context)) return;
        enqueue('finish');
        enqueue.assign({ reported: true });
      }),
      always: { guard: 'prefetchSettled', actions: ['finish', assign({ reported: true })] },
    },
  },
});
