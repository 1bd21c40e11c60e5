// The proposer: one reflective proposal's life. Evaluate the parent on the task's minibatch with
// traces, skip if it is already perfect, build the reflective dataset, ask the reflection LM
// for each chosen component (concurrently), evaluate the child on the same minibatch, report
// the verdict, and, when the optimizer grants it, evaluate the child on the valset. It holds
// no randomness: everything it does follows from its input and the replies it receives.
// A merge proposal is a proposer too: it starts from a ready child, scores it on the merge
// subsample, and shares the tail (verdict, grant, valset). The mutation and the verdict are the
// domain's (src/gepa/proposer/childCandidate.ts); this machine sequences them.
import { assign, enqueueActions, not, sendParent, sendTo, setup, type AnyActorRef, type ActorSystem } from 'xstate';
import { errorMessage } from '../src/errorMessage.js';
import type { CallOrigin } from '../src/evaluation/evaluationService.js';
import { everyCallFailed } from '../src/evaluation/failureTally.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import { rebaseGateExamples } from '../src/gepa/core/staleChild.js';
import { isAccepted, valsetScoresOf, type MinibatchOutcome, type Proposal, type ProposalSpend } from '../src/gepa/core/proposal.js';
import { buildChild, judgeProposalChild, noChildReason, readReflection, type ComponentReply } from '../src/gepa/proposer/childCandidate.js';
import { defaultReflection, readProposedTexts, reflectionWork, type ReflectionStrategy, type ReflectionWork } from '../src/gepa/proposer/reflectionStrategy.js';
import { isPerfect, judgeChild } from '../src/gepa/strategies/acceptance.js';
import { nextRaceStep, type RaceStep, type ValsetRace } from '../src/gepa/strategies/valsetPolicy.js';
import type { AcceptanceRule, Candidate, Evaluation, EvaluatedExample, RebaseGate, ReflectiveDataset, RunEvent } from '../src/types.js';
import type { EvaluatorRef, EvaluatorReply, EvaluatorRequest, ProposerDecision, ProposerReport } from './protocol.js';

export interface ProposerInput {
  id: string;
  step: number;
  task: number;
  parent: Candidate;
  parentHash: string;
  /** Example-table ids of the task's minibatch. */
  minibatch: number[];
  /** Example-table ids of the valset. */
  valIds: number[];
  components: string[];
  examples: readonly unknown[];
  acceptance: AcceptanceRule;
  skipPerfectScore: boolean;
  perfectScore: number;
  buildDataset: (candidate: Candidate, results: EvaluatedExample<unknown>[], components: string[]) => Promise<ReflectiveDataset>;
  /** How the new texts are asked for (default: the built-in reflection prompt per component). */
  reflection?: ReflectionStrategy;
  /** Receives this task's fine-grained run events (evaluation started, ended, skipped). */
  report?: (event: RunEvent) => void;
  /** Present for a merge proposal: the merged child and its parents' sums on the subsample (`minibatch`). */
  merge?: { child: Candidate; parentSums: [number, number] };
}

/** The input, the work in progress, and the parts of the proposal's record it fills in. */
export interface ProposerContext extends ProposerInput, Pick<Proposal, 'outcome' | 'child' | 'valset' | 'valsetStop'> {
  parentEvaluations: Evaluation[];
  /** The child's scores on the minibatch, once judged there. */
  childMinibatchScores?: number[];
  dataset?: ReflectiveDataset;
  /** What the evaluator is asked for: the reflection prompts, or the user's proposer. */
  work?: ReflectionWork;
  /** Per chosen component: the new text, or why there is none. */
  replies: Array<ComponentReply | undefined>;
  childHash?: string;
  /** Set when told to rebase: the newer candidate, the gate, and the gate's scores of it and of the rebased child as they come. */
  rebase?: { onto: Candidate; ontoHash: string; gate: RebaseGate; ontoScores?: number[]; childScores?: number[] };
  /** Set when the valset evaluation is a race: its plan, and the child's scores so far by valset position. */
  race?: { plan: ValsetRace; scores: Map<number, Evaluation> };
  spend: ProposalSpend;
}

/** The dataset builder's answer (with the reflection work made from it), sent by the proposer to itself. */
type DatasetEvent = { type: 'dataset.built'; dataset: ReflectiveDataset; work: ReflectionWork } | { type: 'dataset.failed'; error: unknown };

export type ProposerEvent = EvaluatorReply | ProposerDecision | DatasetEvent;

const PARENT = 0;
const CHILD = 1;
const VALSET = 2;
const REBASED_CHILD = 3;
const REBASE_ONTO = 4;
/** Reflection request ids are REFLECT_BASE + component position. */
const REFLECT_BASE = 100;

/** The evaluator the requests go to; the optimizer starts it before any proposer. */
function evaluatorIn(system: ActorSystem<any>): EvaluatorRef {
  const evaluator: EvaluatorRef | undefined = system.get('evaluator');
  if (!evaluator) throw new Error("proposer: no actor with systemId 'evaluator' in the system");
  return evaluator;
}

/** Every request names this proposal, so telemetry can nest its calls under the proposal's span. */
const originOf = (context: ProposerContext): CallOrigin => ({ step: context.step, task: context.task });

/** The rebase gate's evaluation of the rebased child, or of the candidate it was rebased onto. */
function rebaseRequest(context: ProposerContext, self: AnyActorRef, requestId: typeof REBASED_CHILD | typeof REBASE_ONTO): EvaluatorRequest {
  const child = requestId === REBASED_CHILD;
  const candidate = (child ? context.child : context.rebase?.onto) as Candidate;
  const hash = (child ? context.childHash : context.rebase?.ontoHash) as string;
  return { type: 'evaluate', requestId, replyTo: self, candidate, hash, exampleIds: rebaseGateExampleIds(context), captureTraces: false, kind: 'child', origin: originOf(context) };
}

const rebaseGateExampleIds = (context: ProposerContext) =>
  rebaseGateExamples(context.rebase?.gate ?? 'whole-minibatch', context.minibatch, scores(context.parentEvaluations), context.childMinibatchScores ?? []);

const toEvaluator = ({ system }: { system: { get: (id: string) => AnyActorRef | undefined } }) => system.get('evaluator') as AnyActorRef;

type TaskEvent = Extract<RunEvent, { step: number; task: number }>;
/** A task's run event without its step and task numbers (the proposer adds them). */
type WithoutTask<E> = E extends unknown ? Omit<E, 'step' | 'task'> : never;
type TaskEventBody = WithoutTask<TaskEvent>;

/**
 * An action that reports a run event about this task straight to the run's listener: these are
 * the fine-grained events (evaluation started/ended/skipped), several per proposal, so they do
 * not travel through the optimizer's mailbox.
 */
function report(make: (args: { context: ProposerContext; event: ProposerEvent }) => TaskEventBody) {
  return ({ context, event }: { context: ProposerContext; event: ProposerEvent }) => {
    context.report?.({ ...make({ context, event }), step: context.step, task: context.task } as RunEvent);
  };
}

const EVERY_CALL_FAILED = "every metric call of the parent's minibatch failed";
const skipped = (context: ProposerContext, reason: string): MinibatchOutcome => ({ task: context.task, status: 'skipped', reason });

/** The race's scores with a chunk's evaluations added (positions as requested, in order). */
function raceScores(context: ProposerContext, event: ProposerEvent): Map<number, Evaluation> {
  const scores = new Map(context.race?.scores);
  if (event.type !== 'evaluated' || !context.race) return scores;
  const positions = nextRaceStep(context.race.plan, context.race.scores);
  if (positions.kind === 'evaluate') positions.positions.forEach((j, i) => scores.set(j, event.evaluations[i] as Evaluation));
  return scores;
}

const raceStepAfter = (context: ProposerContext, event: ProposerEvent): RaceStep =>
  context.race ? nextRaceStep(context.race.plan, raceScores(context, event)) : { kind: 'complete' };
const scores = (evaluations: readonly Evaluation[]) => evaluations.map((e) => e.score);

export const proposerMachine = setup({
  types: {
    context: {} as ProposerContext,
    events: {} as ProposerEvent,
    input: {} as ProposerInput,
  },
  guards: {
    parentPerfect: ({ context, event }) => context.skipPerfectScore && event.type === 'evaluated' && isPerfect(scores(event.evaluations), context.perfectScore),
    allReflected: ({ context }) => context.replies.every((r) => r !== undefined),
    hasChild: ({ context }) => context.child !== undefined,
    childAccepted: ({ context }) => isAccepted(context.outcome),
  },
  actions: {
    pay: assign(({ context, event }) => {
      if (event.type !== 'evaluated' && event.type !== 'reflected' && event.type !== 'evaluator.failed') return {};
      const { spend } = context;
      const reflection = event.type === 'reflected';
      return {
        spend: {
          paidCalls: spend.paidCalls + (reflection ? 0 : event.paidCalls),
          reflectionCalls: spend.reflectionCalls + (reflection ? 1 : 0),
          reflectionCostUsd: spend.reflectionCostUsd + (reflection ? event.costUsd : 0),
          costUsd: spend.costUsd + event.costUsd,
        },
      };
    }),
    finish: sendParent(({ context }): ProposerReport => ({
      type: 'proposal.finished',
      id: context.id,
      spend: context.spend,
      outcome: context.outcome,
      child: context.child,
      valset: context.valset,
      ...(context.valsetStop ? { valsetStop: context.valsetStop } : {}),
      ...(context.rebase ? { rebaseGateExamples: rebaseGateExampleIds(context).length } : {}),
    })),
    /** Only an accepted child needs the optimizer's answer; every other verdict travels in 'finish'. */
    reportJudged: enqueueActions(({ context, enqueue }) => {
      if (!isAccepted(context.outcome)) return;
      enqueue.sendParent({ type: 'proposal.judged', id: context.id, outcome: context.outcome as MinibatchOutcome, child: context.child } satisfies ProposerReport);
    }),
  },
}).createMachine({
  id: 'proposer',
  context: ({ input }) => ({
    ...input,
    parentEvaluations: [],
    replies: input.components.map(() => undefined),
    spend: { paidCalls: 0, reflectionCalls: 0, reflectionCostUsd: 0, costUsd: 0 },
  }),
  initial: 'starting',
  states: {
    starting: {
      always: [
        {
          guard: ({ context }) => context.merge !== undefined,
          target: 'evaluatingChild',
          actions: assign(({ context }) => ({ child: context.merge?.child, childHash: candidateHash(context.merge?.child as Candidate) })),
        },
        { target: 'evaluatingParent' },
      ],
    },
    evaluatingParent: {
      entry: [
        report(() => ({ type: 'evaluation.started', target: 'parent' })),
        sendTo(toEvaluator, ({ context, self }): EvaluatorRequest => ({
          type: 'evaluate',
          requestId: PARENT,
          replyTo: self,
          candidate: context.parent,
          hash: context.parentHash,
          exampleIds: context.minibatch,
          captureTraces: true,
          kind: 'parent',
          origin: originOf(context),
        })),
      ],
      on: {
        evaluated: [
          {
            // Nothing to reflect on: a reflection would be paid to "improve" on error messages.
            guard: ({ event }) => event.type === 'evaluated' && everyCallFailed(event.evaluations),
            target: 'finished',
            actions: ['pay', assign({ outcome: ({ context }) => skipped(context, EVERY_CALL_FAILED) }), report(() => ({ type: 'evaluation.skipped', reason: EVERY_CALL_FAILED }))],
          },
          {
            guard: 'parentPerfect',
            target: 'finished',
            actions: [
              'pay',
              assign({ outcome: ({ context }) => skipped(context, 'parent is perfect on its minibatch') }),
              report(() => ({ type: 'evaluation.skipped', reason: 'parent is perfect on its minibatch' })),
            ],
          },
          {
            target: 'buildingDataset',
            actions: [
              'pay',
              assign({ parentEvaluations: ({ event }) => (event.type === 'evaluated' ? event.evaluations : []) }),
              report(({ event }) => ({ type: 'evaluation.ended', target: 'parent', sum: event.type === 'evaluated' ? event.evaluations.reduce((a, e) => a + e.score, 0) : 0 })),
            ],
          },
        ],
        'evaluator.failed': { target: 'failed', actions: 'pay' },
      },
    },
    // The adapter's dataset builder may be async. Its promise reports back with an event rather
    // than through an invoked promise actor: one actor fewer per proposal is ~15% of the
    // orchestration cost of an async run with a small valset, and a proposer stopped meanwhile
    // simply drops the late event (sends to a stopped actor are ignored).
    buildingDataset: {
      entry: ({ context, self }) => {
        const results = context.minibatch.map((id, i) => ({ example: context.examples[id], evaluation: context.parentEvaluations[i] as Evaluation }));
        Promise.resolve()
          .then(() => context.buildDataset(context.parent, results, context.components))
          .then(
            // `self.send` is XState's public path: it records no sender (see machines/README.md).
            (dataset): void => self.send({ type: 'dataset.built', dataset, work: reflectionWork(context.reflection ?? defaultReflection, context.parent, context.components, dataset) }),
            (error: unknown): void => self.send({ type: 'dataset.failed', error }),
          );
      },
      on: {
        'dataset.built': [
          {
            guard: ({ event }) => event.work.kind === 'failed',
            target: 'finished',
            actions: assign({ outcome: ({ context, event }) => skipped(context, (event as { work: Extract<ReflectionWork, { kind: 'failed' }> }).work.reason) }),
          },
          { target: 'reflecting', actions: assign({ dataset: ({ event }) => event.dataset, work: ({ event }) => event.work }) },
        ],
        'dataset.failed': {
          target: 'finished',
          actions: assign({ outcome: ({ context, event }) => skipped(context, `building the reflective dataset failed: ${errorMessage(event.error)}`) }),
        },
      },
    },
    reflecting: {
      entry: enqueueActions(({ context, self, system, enqueue }) => {
        const evaluator = evaluatorIn(system);
        const { work } = context;
        if (work?.kind === 'custom') {
          const request = { type: 'propose' as const, requestId: REFLECT_BASE, replyTo: self, candidate: context.parent, dataset: context.dataset ?? {}, components: context.components, origin: originOf(context) };
          enqueue.sendTo(evaluator, request satisfies EvaluatorRequest);
        }
        if (work?.kind !== 'prompts') return;
        work.prompts.forEach((prompt, i) => {
          enqueue.sendTo(evaluator, { type: 'reflect', requestId: REFLECT_BASE + i, replyTo: self, prompt, origin: originOf(context) } satisfies EvaluatorRequest);
        });
      }),
      on: {
        proposed: {
          actions: [
            ({ context, event }) => {
              if (!event.ok) context.report?.({ type: 'error', message: `task ${context.step}/${context.task}: proposeNewTexts failed: ${event.error}` });
            },
            assign({ replies: ({ context, event }) => readProposedTexts(context.components, event.ok ? { ok: true, texts: event.texts } : event) }),
          ],
        },
        reflected: {
          actions: [
            'pay',
            ({ context, event }) => {
              if (!event.ok) context.report?.({ type: 'error', message: `task ${context.step}/${context.task}: reflection failed: ${event.error}` });
            },
            assign({
              replies: ({ context, event }) => {
                const replies = [...context.replies];
                replies[event.requestId - REFLECT_BASE] = readReflection(event.ok ? { ok: true, text: event.reply.text } : event);
                return replies;
              },
            }),
          ],
        },
        'evaluator.failed': { target: 'failed', actions: 'pay' },
      },
      always: {
        guard: 'allReflected',
        target: 'makingChild',
        actions: assign(({ context }) => {
          const child = buildChild(context.parent, context.components, context.replies);
          return child ? { child, childHash: candidateHash(child) } : {};
        }),
      },
    },
    makingChild: {
      always: [
        { guard: 'hasChild', target: 'evaluatingChild' },
        { target: 'finished', actions: assign({ outcome: ({ context }) => skipped(context, noChildReason(context.components, context.replies)) }) },
      ],
    },
    evaluatingChild: {
      entry: [
        report(() => ({ type: 'evaluation.started', target: 'child' })),
        sendTo(toEvaluator, ({ context, self }): EvaluatorRequest => ({
          type: 'evaluate',
          requestId: CHILD,
          replyTo: self,
          candidate: context.child as Candidate,
          hash: context.childHash as string,
          exampleIds: context.minibatch,
          captureTraces: false,
          kind: context.merge ? 'merge' : 'child',
          origin: originOf(context),
        })),
      ],
      on: {
        evaluated: {
          target: 'awaitingDecision',
          actions: [
            'pay',
            assign({
              childMinibatchScores: ({ event }) => (event.type === 'evaluated' ? scores(event.evaluations) : []),
              outcome: ({ context, event }) => ({
                task: context.task,
                status: 'judged' as const,
                childHash: context.childHash as string,
                verdict: judgeProposalChild(context, scores(context.parentEvaluations), event.type === 'evaluated' ? scores(event.evaluations) : []),
              }),
            }),
            report(({ context }) => ({ type: 'evaluation.ended', target: 'child', sum: context.outcome?.status === 'judged' ? context.outcome.verdict.childSum : 0 })),
            'reportJudged',
          ],
        },
        'evaluator.failed': { target: 'failed', actions: 'pay' },
      },
    },
    awaitingDecision: {
      always: { guard: not('childAccepted'), target: 'finished' },
      on: {
        'valset.granted': [
          {
            guard: ({ event }) => event.race !== undefined,
            target: 'racingValset',
            actions: [
              assign({ race: ({ event }) => ({ plan: event.race as ValsetRace, scores: new Map() }) }),
              report(() => ({ type: 'evaluation.started', target: 'valset' })),
            ],
          },
          { target: 'evaluatingValset' },
        ],
        'valset.denied': 'finished',
        rebase: {
          target: 'evaluatingRebase',
          actions: assign(({ event }) => ({ child: event.child, childHash: event.childHash, rebase: { onto: event.onto, ontoHash: event.ontoHash, gate: event.gate } })),
        },
      },
    },
    // Async rebasing: the rebased child and the candidate it was rebased onto, on the examples of
    // its minibatch the gate names (staleChild.ts); the child must beat that candidate there to be
    // worth a valset evaluation.
    evaluatingRebase: {
      entry: [
        report(() => ({ type: 'evaluation.started', target: 'child' })),
        enqueueActions(({ context, self, system, enqueue }) => {
          const evaluator = evaluatorIn(system);
          enqueue.sendTo(evaluator, rebaseRequest(context, self, REBASED_CHILD));
          enqueue.sendTo(evaluator, rebaseRequest(context, self, REBASE_ONTO));
        }),
      ],
      on: {
        evaluated: {
          actions: [
            'pay',
            assign({
              rebase: ({ context, event }) => ({
                ...(context.rebase as NonNullable<ProposerContext['rebase']>),
                [event.requestId === REBASED_CHILD ? 'childScores' : 'ontoScores']: scores(event.evaluations),
              }),
            }),
          ],
        },
        'evaluator.failed': { target: 'failed', actions: 'pay' },
      },
      always: {
        guard: ({ context }) => context.rebase?.childScores !== undefined && context.rebase.ontoScores !== undefined,
        target: 'awaitingDecision',
        actions: [
          assign({
            outcome: ({ context }) => ({
              task: context.task,
              status: 'judged' as const,
              childHash: context.childHash as string,
              verdict: judgeChild(context.acceptance, context.rebase?.ontoScores ?? [], context.rebase?.childScores ?? []),
            }),
          }),
          report(({ context }) => ({ type: 'evaluation.ended', target: 'child', sum: context.outcome?.status === 'judged' ? context.outcome.verdict.childSum : 0 })),
          'reportJudged',
        ],
      },
    },
    evaluatingValset: {
      entry: [
        report(() => ({ type: 'evaluation.started', target: 'valset' })),
        sendTo(toEvaluator, ({ context, self }): EvaluatorRequest => ({
          type: 'evaluate',
          requestId: VALSET,
          replyTo: self,
          candidate: context.child as Candidate,
          hash: context.childHash as string,
          exampleIds: context.valIds,
          captureTraces: false,
          kind: 'valset',
          origin: originOf(context),
        })),
      ],
      on: {
        evaluated: {
          target: 'finished',
          actions: [
            'pay',
            assign({
              valset: ({ event }) => (event.type === 'evaluated' ? valsetScoresOf(event.evaluations) : undefined),
            }),
          ],
        },
        'evaluator.failed': { target: 'failed', actions: 'pay' },
      },
    },
    // A valset race: the next chunk of positions, until the child is complete or has lost.
    racingValset: {
      entry: sendTo(toEvaluator, ({ context, self }): EvaluatorRequest => {
        const step = nextRaceStep(context.race?.plan as ValsetRace, context.race?.scores ?? new Map());
        const positions = step.kind === 'evaluate' ? step.positions : [];
        return {
          type: 'evaluate',
          requestId: VALSET,
          replyTo: self,
          candidate: context.child as Candidate,
          hash: context.childHash as string,
          exampleIds: positions.map((j) => context.valIds[j] as number),
          captureTraces: false,
          kind: 'valset',
          origin: originOf(context),
        };
      }),
      on: {
        evaluated: [
          {
            guard: ({ context, event }) => raceStepAfter(context, event).kind === 'evaluate',
            target: 'racingValset',
            reenter: true,
            actions: ['pay', assign({ race: ({ context, event }) => ({ plan: context.race?.plan as ValsetRace, scores: raceScores(context, event) }) })],
          },
          {
            guard: ({ context, event }) => raceStepAfter(context, event).kind === 'stop',
            target: 'finished',
            actions: [
              'pay',
              assign({ valsetStop: ({ context, event }) => (raceStepAfter(context, event) as Extract<RaceStep, { kind: 'stop' }>).reason }),
            ],
          },
          {
            target: 'finished',
            actions: [
              'pay',
              assign({
                valset: ({ context, event }) => {
                  const scores = raceScores(context, event);
                  return valsetScoresOf(context.valIds.map((_, j) => scores.get(j) as Evaluation));
                },
              }),
            ],
          },
        ],
        'evaluator.failed': { target: 'failed', actions: 'pay' },
      },
    },
    failed: {
      // The evaluator could not serve a request (aborted, or refused by the dollar budget):
      // report what was spent.
      entry: ({ context, event }) => {
        if (event.type === 'evaluator.failed') context.report?.({ type: 'error', message: `task ${context.step}/${context.task}: ${event.error}` });
      },
      always: 'finished',
    },
    // Not a final state: the optimizer stops a proposer when it reports 'proposal.finished', so a
    // done event per proposal would only cost the optimizer one more (empty) macrostep.
    finished: {
      entry: 'finish',
    },
  },
});
