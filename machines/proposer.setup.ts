// The proposer's vocabulary: its context, its events, its starting context, and the `setup(...)`
// that types them with the named guards and the plain actions (pay, report). The state chart
// (proposer.machine.ts) and the action modules beside it build on `proposerSetup`, so they share
// one set of types; nothing here decides a stage: the domain (src/gepa/proposer/) does.
import { sendParent, setup, type ActionArgs, type ActionFunction } from 'xstate';
import { addSpend, isAccepted, NOTHING_SPENT, type Proposal, type ProposalSpend } from '../src/gepa/core/proposal.js';
import { hashedChild } from '../src/gepa/proposer/childCandidate.js';
import { isPrefetchRequestId } from '../src/gepa/proposer/evaluationPlan.js';
import type { SkipOrGoOn } from '../src/gepa/proposer/proposalSkips.js';
import type { RebaseGateRun } from '../src/gepa/proposer/rebaseGate.js';
import { parentEvidence } from '../src/gepa/reflection/evidenceHistory.js';
import { roundAnswered, type ReflectionRun } from '../src/gepa/reflection/reflectionRun.js';
import type { ValsetRaceRun } from '../src/gepa/proposer/valsetRaceRun.js';
import type { Evaluation, ReflectiveDataset } from '../src/gepa/core/adapter.js';
import type { EvaluatorReply, ProposerDecision, ProposerInput, ProposalUpdate } from './protocol.js';

/** The input, the work in progress (each stage's domain answer), and the parts of the proposal's record it fills in. */
export interface ProposerContext extends ProposerInput, Pick<Proposal, 'outcome' | 'child' | 'valset' | 'valsetStop'> {
  parentEvaluations: Evaluation[];
  /** The parent's minibatch sum, once the parent's evaluation said go on. */
  parentSum?: number;
  /** The child's evaluations on the minibatch, once judged there. */
  childEvaluations?: Evaluation[];
  dataset?: ReflectiveDataset;
  /** The reflection in progress (gepa/reflection/reflectionRun.ts): its round's requests and the replies so far. */
  reflecting?: ReflectionRun;
  /** The round the strategy asked for after reading the last one, until it is asked (reflecting is entered again). */
  nextRound?: ReflectionRun;
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

/** The dataset builder's answer read by the domain (sent by the proposer to itself): go on to reflect (the first round's requests), or skip. */
export type DatasetEvent = { type: 'dataset.built' | 'dataset.failed'; next: SkipOrGoOn<{ dataset: ReflectiveDataset; reflecting: ReflectionRun }> };

/** Everything a proposer receives: the evaluator's replies, the optimizer's decisions, its dataset builder's answer. */
export type ProposerEvent = EvaluatorReply | ProposerDecision | DatasetEvent;

/** A reply to a rebase gate evaluated ahead (search/gatePrefetch.ts): only paid for; the real gate finds it in the evaluation cache. */
const isPrefetchReply = (event: ProposerEvent): boolean => (event.type === 'evaluated' || event.type === 'evaluator.failed') && isPrefetchRequestId(event.requestId);

/** A stage's answer folded into the context: a skip becomes the proposal's outcome, a go-on gives its fields. */
export function goOnOrSkip<T extends object>(context: ProposerContext, answer: SkipOrGoOn<T>): Partial<ProposerContext> {
  if (answer.kind === 'skip') return { outcome: { task: context.task, status: 'skipped', reason: answer.reason } };
  const { kind: _, ...fields } = answer;
  return fields;
}

/** A reply's charge added to the proposal's spend, as a context patch (each transition that takes a paid reply keeps it with its stage's answer). */
export const paid = (context: ProposerContext, event: ProposerEvent): Pick<ProposerContext, 'spend'> =>
  event.type === 'evaluated' || event.type === 'reflected' || event.type === 'evaluator.failed' ? { spend: addSpend(context.spend, event) } : { spend: context.spend };

/**
 * A parent evaluation the optimizer asked for (ProposerInput.parentEvaluated) folded into the
 * starting context as the proposer's own reply would have been: its evaluations, its charge and
 * the parent's sum (the optimizer spawns a proposer only when the stage's answer is go on).
 */
function parentEvaluatedBefore(parent: NonNullable<ProposerInput['parentEvaluated']>): Partial<ProposerContext> {
  return { parentEvaluations: parent.evaluations, spend: parent.spend, parentSum: parent.sum };
}

/**
 * The action that keeps a stage's answer: the patch its domain function gave, set on the
 * proposer's context in place. The context is the proposal's work for the proposer's whole life,
 * held by reference (one object, made at the start by `startingContext`), and only these actions
 * change it, in the order the state chart names them, as `assign` would have; guards only read
 * it. Not `assign`: each assign copied the whole context (the input's twenty-odd fields with the
 * work's) and cloned the machine's snapshot, five to eight times a proposal (machines/README.md,
 * "Decisions"). It stays plain data: JSON of the snapshot holds it as before.
 */
export function keep<TExpressionEvent extends ProposerEvent>(
  patch: (args: ActionArgs<ProposerContext, TExpressionEvent, ProposerEvent>) => Partial<ProposerContext>,
): ActionFunction<ProposerContext, TExpressionEvent, ProposerEvent, undefined, never, never, never, never, never> {
  return (args) => {
    Object.assign(args.context, patch(args));
  };
}

/**
 * keep for a paid reply: its charge (the spend) set first, then the stage's answer, both read
 * from the context as it was, as `keep(() => ({ ...paid(context, event), ...patch }))` would.
 * Not that object: on Node 20's V8 a literal that starts with a spread and then adds a key its
 * source lacks takes a slow path, ~1 us each (machines/README.md, "Decisions").
 */
export function keepPaid<TExpressionEvent extends ProposerEvent>(
  patch: (args: ActionArgs<ProposerContext, TExpressionEvent, ProposerEvent>) => Partial<ProposerContext>,
): ActionFunction<ProposerContext, TExpressionEvent, ProposerEvent, undefined, never, never, never, never, never> {
  return (args) => {
    Object.assign(args.context, paid(args.context, args.event), patch(args));
  };
}

/** The starting context: a merge's child is ready (and hashed), an async parent's evaluation already folded in. */
// Object.assign, not a literal starting with `...input`: adding keys to such a spread is V8's slow path (keepPaid says more).
export const startingContext = ({ input }: { input: ProposerInput }): ProposerContext =>
  Object.assign(
    {},
    input,
    { parentEvaluations: [], spend: NOTHING_SPENT },
    input.merge ? hashedChild(input.merge.child) : undefined,
    input.parentEvaluated ? parentEvaluatedBefore(input.parentEvaluated) : undefined,
  );

/** The proposal's end is still to report, and no gate evaluated ahead is unpaid. */
export const endUnreported = (context: ProposerContext): boolean => !context.prefetching && !context.reported;

/** The proposer's types, named guards and plain actions; proposer.machine.ts makes the machine from it. */
export const proposerSetup = setup({
  types: {
    context: {} as ProposerContext,
    events: {} as ProposerEvent,
    input: {} as ProposerInput,
  },
  guards: {
    roundAnswered: ({ context }) => roundAnswered(context.reflecting),
    raceGoesOn: ({ context }) => context.race?.next.kind === 'evaluate',
    prefetchReply: ({ event }) => isPrefetchReply(event),
    prefetchSettled: ({ context }) => endUnreported(context),
  },
  actions: {
    /** A prefetched gate's reply: paid for, and counted off. */
    prefetchReplied: keepPaid(({ context }) => ({ prefetching: (context.prefetching ?? 1) - 1 })),
    pay: keep(({ context, event }) => paid(context, event)),
    finish: sendParent(({ context }): ProposalUpdate => {
      const { id, spend, outcome, child, valset, valsetStop, rebase, reflecting } = context;
      const evidence = context.shareEvidence ? parentEvidence(context) : undefined;
      return {
        type: 'proposal.finished', id, spend, outcome, child, valset,
        ...(valsetStop ? { valsetStop } : {}),
        ...(rebase ? { rebaseGateExamples: rebase.exampleIds.length } : {}),
        ...(reflecting?.tooLong ? { tooLong: reflecting.tooLong } : {}),
        ...(evidence ? { evidence } : {}),
      };
    }),
    /**
     * An accepted child's verdict, for the optimizer's answer: only the transitions of an accepted
     * verdict name it (every other verdict travels in 'finish'), so it is sent as it is, with no
     * enqueueActions to ask again.
     */
    sendJudged: sendParent(({ context }): ProposalUpdate => {
      if (!isAccepted(context.outcome)) throw new Error('proposer: a verdict sent for an answer that was not accepted');
      return { type: 'proposal.judged', id: context.id, outcome: context.outcome, child: context.child };
    }),
  },
});

/** The evaluator could not serve a request: what it ran is paid, and the proposal ends without a verdict. */
export const FAILED_REQUEST = { target: 'failed', actions: 'pay' } as const;
/** A reply to a gate evaluated ahead, in whatever state it comes: paid for, and counted off. */
export const PREFETCH_REPLY = { guard: 'prefetchReply', actions: 'prefetchReplied' } as const;
