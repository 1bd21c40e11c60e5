// The proposer: one reflective proposal's life. Evaluate the parent on the task's minibatch with
// traces, build the reflective dataset, reflect (the run's strategy's requests, each round's
// concurrently: by default one reflection prompt per chosen component), evaluate the child on the
// same minibatch, report the verdict, and, when the
// optimizer grants it, evaluate the child on the valset. A merge proposal is a proposer too: it
// starts from a ready child and shares the tail (verdict, grant, valset). It holds no randomness
// and no rule: each stage asks the domain (src/gepa/proposer/, src/gepa/reflection/) and keeps its answer. This file
// is the state chart; its types and plain actions are in proposer.setup.ts, what it asks for in
// proposer.requests.ts, the run events it tells in proposer.runEvents.ts.
import type { ActionArgs } from 'xstate';
import { isAccepted, valsetScoresOf, type MinibatchOutcome } from '../src/gepa/core/proposal.js';
import type { Evaluation } from '../src/gepa/core/adapter.js';
import { judgeChildOutcome } from '../src/gepa/proposer/childCandidate.js';
import { askOfReply, madeChild, rebaseSideOf } from '../src/gepa/proposer/evaluationPlan.js';
import { afterParentEvaluation } from '../src/gepa/proposer/proposalSkips.js';
import { rebaseGateAfter, startRebaseGate, type RebaseGateRun } from '../src/gepa/proposer/rebaseGate.js';
import { afterRound, roundAnswered, withReply, type AfterRound, type ReflectionRun } from '../src/gepa/reflection/reflectionRun.js';
import { raceAfterChunk, raceResult, startRace } from '../src/gepa/proposer/valsetRaceRun.js';
import type { ProposerInput } from './protocol.js';
import { askForReflections, buildDataset, evaluate, prefetchRebaseGate } from './proposer.requests.js';
import { childJudged, evaluationStarted, parentEnded, parentSkipped, proposeFailed, reflectionEnded, reflectionFailed, reflectionStarted, requestFailed, valsetStarted } from './proposer.runEvents.js';
import { endUnreported, FAILED_REQUEST, goOnOrSkip, keep, keepPaid, PREFETCH_REPLY, proposerSetup, startingContext, type ProposerContext, type ProposerEvent } from './proposer.setup.js';

/** The end is reported ('finish' sent). */
const REPORTED = keep(() => ({ reported: true }));

/**
 * A reply kept in its place of the round; the reply that completes the round has the strategy
 * read it at once (reflectionRun.ts), and its answer is kept with it: the next round to ask for
 * (`nextRound`), the child, or the skip (which may carry the run as it ended: the length rule's
 * refusal, reported with the proposal). Read here, on the reply, and not in an eventless step
 * after it: a routing state between the reply and where the round leads was one more microstep a
 * round, with its snapshot and Sets (machines/README.md, "Decisions").
 */
function replyKept(context: ProposerContext, reflecting: ReflectionRun | undefined): Partial<ProposerContext> {
  if (!reflecting || !roundAnswered(reflecting)) return { reflecting };
  const next: AfterRound = afterRound(context, reflecting);
  if (next.kind === 'ask') return { reflecting, nextRound: next.reflecting };
  return { reflecting, ...goOnOrSkip(context, next), ...(next.kind === 'skip' && next.reflecting ? { reflecting: next.reflecting } : {}) };
}

/** A reply of the round, as the round keeps it. */
type RoundReply = Extract<ProposerEvent, { type: 'proposed' | 'reflected' }>;

/**
 * replyKept for a reply, read once: the guard that routes the round's last reply and the action
 * that keeps it both need it, and reading a round calls the strategy (the user's code, to run
 * once a round). Kept by the reply itself, the one event object XState hands the guard and the
 * actions of its transition (an evaluator's reply goes to one proposer).
 */
const keptByReply = new WeakMap<RoundReply, Partial<ProposerContext>>();
function roundKept(context: ProposerContext, event: RoundReply): Partial<ProposerContext> {
  let kept = keptByReply.get(event);
  if (kept === undefined) {
    const reply = event.type === 'proposed' ? (event.ok ? { ok: true as const, texts: event.texts } : event) : event.ok ? { ok: true as const, text: event.reply.text } : event;
    kept = replyKept(context, context.reflecting && withReply(context.reflecting, askOfReply(event.requestId), reply));
    keptByReply.set(event, kept);
  }
  return kept;
}

/**
 * An entry action of buildingDataset that runs once the parent's evaluation said go on (its sum
 * is kept then): the initial state is entered by a merge and by a proposer that evaluates its own
 * parent too, on their way out, with nothing to report or build.
 */
function afterParentWentOn(action: (args: EntryArgs, params: undefined) => void) {
  return (args: EntryArgs): void => {
    if (args.context.parentSum !== undefined) action(args, undefined);
  };
}
type EntryArgs = ActionArgs<ProposerContext, ProposerEvent, ProposerEvent>;

/** The child's verdict on the minibatch against its parent (read by the guard that routes it, then kept). */
const childOutcome = (context: ProposerContext, evaluations: Evaluation[]): MinibatchOutcome =>
  judgeChildOutcome(context, { childHash: madeChild(context, 'the child was judged').hash, evaluations }, { against: 'parent', evaluations: context.parentEvaluations });

/** The child's minibatch evaluation and verdict kept, its charge paid. */
const childKept = keepPaid<Extract<ProposerEvent, { type: 'evaluated' }>>(({ context, event }) => ({ childEvaluations: event.evaluations, outcome: childOutcome(context, event.evaluations) }));

/** The rebase gate with this reply's side in, and judged once both sides are (read by the guards that route the verdict, then kept). */
const gateAfter = (context: ProposerContext, event: Extract<ProposerEvent, { type: 'evaluated' }>): RebaseGateRun | undefined =>
  context.rebase && rebaseGateAfter(context.rebase, rebaseSideOf(event.requestId), event.evaluations, { task: context.task, acceptance: context.acceptance, childHash: madeChild(context, 'the rebased child was judged').hash });

/** The gate's reply kept, its charge paid. */
const gateKept = keepPaid<Extract<ProposerEvent, { type: 'evaluated' }>>(({ context, event }) => ({ rebase: gateAfter(context, event) }));
/** The gate's verdict is the rebased child's outcome. */
const gateJudged = keep(({ context }) => ({ outcome: context.rebase?.outcome }));

export type { ProposerInput };
export type { ProposerContext, ProposerEvent } from './proposer.setup.js';

/**
 * One proposal as an XState machine, spawned by the optimizer with a ProposerInput: evaluate the
 * parent on the minibatch, reflect, evaluate the child, report its verdict (ProposalUpdate) and,
 * when told (ProposerDecision), evaluate it on the valset. It talks to the evaluator only.
 */
export const proposerMachine = proposerSetup.createMachine({
  id: 'proposer',
  context: startingContext,
  // A proposer whose parent the optimizer evaluated starts where that evaluation leads, with no
  // eventless step: the built-in proposer's reflective proposals all do (the optimizer asks for
  // the parent and spawns a proposer only when it says go on: ProposerInput.parentEvaluated),
  // and each microstep a proposal takes costs CPU (bench/README.md, "Where the time goes"). A
  // merge (its child ready) leaves at once for evaluatingChild, and one that evaluates its own
  // parent (this machine provided as a replacement proposer) for evaluatingParent.
  initial: 'buildingDataset',
  on: { evaluated: PREFETCH_REPLY, 'evaluator.failed': PREFETCH_REPLY },
  states: {
    evaluatingParent: {
      entry: [evaluationStarted('parent'), evaluate('parent')],
      on: {
        // The stage's answer decides the target on the event itself (no eventless step after it).
        evaluated: [
          {
            guard: ({ context, event }) => afterParentEvaluation(event.evaluations, context).kind === 'skip',
            target: 'finished',
            actions: [
              keepPaid(({ context, event }) => ({ parentEvaluations: event.evaluations, ...goOnOrSkip(context, afterParentEvaluation(event.evaluations, context)) })),
              parentSkipped,
            ],
          },
          {
            target: 'buildingDataset',
            actions: keepPaid(({ context, event }) => ({ parentEvaluations: event.evaluations, ...goOnOrSkip(context, afterParentEvaluation(event.evaluations, context)) })),
          },
        ],
        'evaluator.failed': FAILED_REQUEST,
      },
    },
    // The parent's evaluation said go on (here, or before the spawn): reported, and the dataset
    // built; its builder's promise reports back with an event (proposer.requests.ts says why).
    buildingDataset: {
      entry: [afterParentWentOn(parentEnded), afterParentWentOn(buildDataset)],
      always: [
        { guard: ({ context }) => context.merge !== undefined, target: 'evaluatingChild' },
        { guard: ({ context }) => context.parentSum === undefined, target: 'evaluatingParent' },
      ],
      on: {
        'dataset.*': [
          { guard: ({ event }) => event.next.kind === 'skip', target: 'finished', actions: keep(({ context, event }) => goOnOrSkip(context, event.next)) },
          { target: 'reflecting', actions: keep(({ context, event }) => goOnOrSkip(context, event.next)) },
        ],
      },
    },
    // One round of the strategy's requests; the reply that completes it has the strategy read the
    // round (replyKept), and the round's eventless transitions go where that leads: another round,
    // the child, or a skip.
    reflecting: {
      entry: [reflectionStarted, askForReflections],
      on: {
        // The round's last reply decides the target on the event itself when it makes the child
        // (no eventless step after it); another round or a skip are taken by the eventless
        // transitions below.
        proposed: [
          { guard: ({ context, event }) => roundKept(context, event).child !== undefined, target: 'evaluatingChild', actions: [proposeFailed, keep(({ context, event }) => roundKept(context, event)), reflectionEnded] },
          { actions: [proposeFailed, keep(({ context, event }) => roundKept(context, event))] },
        ],
        reflected: [
          { guard: ({ context, event }) => roundKept(context, event).child !== undefined, target: 'evaluatingChild', actions: [reflectionFailed, keepPaid(({ context, event }) => roundKept(context, event)), reflectionEnded] },
          { actions: [reflectionFailed, keepPaid(({ context, event }) => roundKept(context, event))] },
        ],
        'evaluator.failed': FAILED_REQUEST,
      },
      always: [
        // The strategy asked for another round: asked as the state is entered again.
        { guard: ({ context }) => context.nextRound !== undefined, target: 'reflecting', reenter: true, actions: keep(({ context }) => ({ reflecting: context.nextRound, nextRound: undefined })) },
        // A skip: its outcome is kept.
        { guard: ({ context }) => context.outcome !== undefined, target: 'finished' },
      ],
    },
    evaluatingChild: {
      entry: [evaluationStarted('child'), evaluate('child')],
      on: {
        // The verdict decides the target on the event itself: a rejected child's proposal ends at
        // once (awaitingDecision would only pass it on, one eventless microstep more).
        evaluated: [
          { guard: ({ context, event }) => !isAccepted(childOutcome(context, event.evaluations)), target: 'finished', actions: [childKept, childJudged] },
          { target: 'awaitingDecision', actions: [childKept, childJudged, 'sendJudged'] },
        ],
        'evaluator.failed': FAILED_REQUEST,
      },
    },
    // Only an accepted child waits here (a rejected one's proposal ended on its verdict).
    awaitingDecision: {
      on: {
        'valset.granted': [
          // With a race, its first chunk (racedChunk reads what comes next).
          { guard: ({ event }) => event.race !== undefined, target: 'racedChunk', actions: [keep(({ context, event }) => ({ race: event.race && startRace(event.race, context.valIds) })), valsetStarted] },
          { target: 'evaluatingValset' },
        ],
        'valset.denied': 'finished',
        // Evaluate ahead the gate a rebase onto `onto` would face; the verdict is still the optimizer's to give.
        'rebase.prefetch': { actions: prefetchRebaseGate },
        rebase: {
          target: 'evaluatingRebase',
          actions: keep(({ context, event }) => ({ child: event.child, childHash: event.childHash, rebase: startRebaseGate(event, context.minibatch, context.parentEvaluations, context.childEvaluations ?? []) })),
        },
      },
    },
    // Async rebasing: the rebased child and the candidate it was rebased onto, on the examples of
    // its minibatch the gate names (staleChild.ts); the child must beat that candidate there to be
    // worth a valset evaluation.
    evaluatingRebase: {
      entry: [evaluationStarted('child'), evaluate('rebased-child'), evaluate('rebase-onto')],
      on: {
        // The gate's second reply judges the rebased child, and its verdict decides the target on
        // the event itself (no eventless step after it): rejected, the proposal ends; accepted,
        // it waits for the optimizer's answer.
        evaluated: [
          PREFETCH_REPLY,
          { guard: ({ context, event }) => gateAfter(context, event)?.outcome === undefined, actions: gateKept },
          { guard: ({ context, event }) => !isAccepted(gateAfter(context, event)?.outcome), target: 'finished', actions: [gateKept, gateJudged, childJudged] },
          { target: 'awaitingDecision', actions: [gateKept, gateJudged, childJudged, 'sendJudged'] },
        ],
        'evaluator.failed': [PREFETCH_REPLY, FAILED_REQUEST],
      },
    },
    evaluatingValset: {
      entry: [valsetStarted, evaluate('valset')],
      on: {
        evaluated: [PREFETCH_REPLY, { target: 'finished', actions: keepPaid(({ event }) => ({ valset: valsetScoresOf(event.evaluations) })) }],
        'evaluator.failed': [PREFETCH_REPLY, FAILED_REQUEST],
      },
    },
    // A valset race: the next chunk of positions, until the child is complete or has lost.
    racingValset: {
      entry: evaluate('race-chunk'),
      on: {
        evaluated: [PREFETCH_REPLY, { target: 'racedChunk', actions: keepPaid(({ context, event }) => ({ race: context.race && raceAfterChunk(context.race, event.evaluations) })) }],
        'evaluator.failed': [PREFETCH_REPLY, FAILED_REQUEST],
      },
    },
    racedChunk: {
      always: [{ guard: 'raceGoesOn', target: 'racingValset' }, { target: 'finished', actions: keep(({ context }) => (context.race ? raceResult(context.race) : {})) }],
    },
    failed: {
      // The evaluator could not serve a request (aborted, or refused by the dollar budget):
      // report what was spent.
      entry: requestFailed,
      always: 'finished',
    },
    // Not a final state: the optimizer stops a proposer when it reports 'proposal.finished', so a
    // done event per proposal would only cost the optimizer one more (empty) macrostep.
    // A gate evaluated ahead is paid for before the end is reported (its replies come to the root's handlers).
    // The end is reported as the state is entered (no eventless step after it) unless gates
    // evaluated ahead are still unpaid; then their last reply's step reports it.
    finished: {
      entry: proposerSetup.enqueueActions(({ context, enqueue }) => {
        if (!endUnreported(context)) return;
        enqueue('finish');
        enqueue(REPORTED);
      }),
      always: { guard: 'prefetchSettled', actions: ['finish', REPORTED] },
    },
  },
});
