// A reflection's life inside a proposal, whatever its strategy: the strategy's first requests once
// the reflective dataset is built, each reply kept in its place, and once a round has every reply,
// what it leads to (another round, or the new texts read into the child, or a skip with the
// reason). Strategies answer with plain data; the proposer keeps this run in its context and asks
// here at each step, so what a strategy returns is checked in one place, for every strategy; and
// maxCandidateLength's rule (lengthLimit.ts) applies to every strategy's texts here.
import { errorMessage } from '../../errors/errorMessage.js';
import type { Candidate, Evaluation, ReflectiveDataset } from '../core/adapter.js';
import { scoresOf } from '../core/scores.js';
import type { ProposalRecord } from '../core/optimizeResult.js';
import type { ComponentReply, HashedChild } from '../proposer/childCandidate.js';
import { afterReflection, type SkipOrGoOn } from '../proposer/proposalSkips.js';
import { builtInPrompt } from './builtInPrompt.js';
import { afterRetry, overLimit, retryAsks, type LengthRetry } from './lengthLimit.js';
import type { NewTexts, ReflectionAsk, ReflectionEvidence, ReflectionInput, ReflectionOptions, ReflectionRead, ReflectionReply, ReflectionStrategy } from './reflectionStrategy.js';

/** The run's reflection: its strategy (held by reference, beside the run's other functions) and the options every strategy reads. */
export interface RunReflection extends ReflectionOptions {
  /** How proposals ask for new texts. */
  strategy: ReflectionStrategy;
}

/** The built-in prompt, with no options: what a proposal without a run reflection uses. */
export const DEFAULT_REFLECTION: RunReflection = { strategy: builtInPrompt };

/** A reflection in progress: the round's requests and the replies so far (plain data, in the proposer's snapshot). */
export interface ReflectionRun {
  /** The strategy's round: 0 for its first requests. */
  round: number;
  /** This round's requests, in the order sent. */
  asks: readonly ReflectionAsk[];
  /** Reply i answers ask i; undefined until it comes. */
  replies: Array<ReflectionReply | undefined>;
  /** What the strategy left for its next read (MoreAsks.state). */
  state?: unknown;
  /** The first prompt sent for each component that a prompt named (gepa's on_proposal_end reports them). */
  prompts: Record<string, string>;
  /** Set while the round is maxCandidateLength's retry: the strategy's texts, and the ones sent back. */
  lengthRetry?: LengthRetry;
  /** What the length rule did (set once a text was sent back): reported with the proposal. */
  tooLong?: ProposalRecord['tooLong'];
}

/** What a proposal knows when it reflects, as the strategy reads it. */
export interface ReflectionView {
  parent: Candidate;
  components: readonly string[];
  dataset?: ReflectiveDataset;
  parentEvaluations: readonly Evaluation[];
  evidence?: readonly ReflectionEvidence[];
  reflection?: RunReflection;
}

/** The strategy's input, from the proposal as it stands. */
export function reflectionInput(view: ReflectionView): ReflectionInput {
  const { strategy: _, ...options } = view.reflection ?? DEFAULT_REFLECTION;
  return { parent: view.parent, components: view.components, dataset: view.dataset ?? {}, scores: scoresOf(view.parentEvaluations), evidence: view.evidence ?? [], options };
}

const strategyOf = (view: ReflectionView): ReflectionStrategy => (view.reflection ?? DEFAULT_REFLECTION).strategy;

const skip = (reason: string) => ({ kind: 'skip' as const, reason });

/** Why requests cannot be made, or null: a strategy written in JavaScript gets no type check. */
function asksProblem(asks: unknown): string | null {
  if (!Array.isArray(asks) || asks.length === 0) return 'asked for nothing';
  for (const ask of asks as Array<Partial<Record<string, unknown>> | null>) {
    if (ask?.kind === 'prompt' && typeof ask.prompt === 'string' && ask.prompt !== '') continue;
    if (ask?.kind === 'propose' && typeof ask.candidate === 'object' && ask.candidate !== null && Array.isArray(ask.components)) continue;
    return `made a request that is neither a prompt ({ kind: 'prompt', prompt }) nor a proposeNewTexts call ({ kind: 'propose', candidate, dataset, components }): ${JSON.stringify(ask)}`;
  }
  return null;
}

/** A round of requests, with the prompts it names for the reflection's report. */
function round(index: number, asks: readonly ReflectionAsk[], state: unknown, prompts: Record<string, string>): ReflectionRun {
  const named = { ...prompts };
  for (const ask of asks) if (ask.kind === 'prompt' && ask.component !== undefined && !(ask.component in named)) named[ask.component] = ask.prompt;
  return { round: index, asks, replies: asks.map(() => undefined), ...(state === undefined ? {} : { state }), prompts: named };
}

/** A skip whose reason names the strategy. */
function namedSkip(strategy: ReflectionStrategy, problem: string) {
  return skip(`reflection strategy '${strategy.name}' ${problem}`);
}

/** Calls a strategy function; what it throws becomes a failure naming the strategy. */
function attempt<T>(strategy: ReflectionStrategy, call: () => T): T | { failed: string } {
  try {
    return call();
  } catch (error) {
    return { failed: `reflection strategy '${strategy.name}' failed: ${errorMessage(error)}` };
  }
}

/** After the dataset builder answered (its dataset, or what it threw): the first round of requests, or a skip. */
export function startReflection(built: { dataset: ReflectiveDataset } | { error: unknown }, view: ReflectionView): SkipOrGoOn<{ dataset: ReflectiveDataset; reflecting: ReflectionRun }> {
  if ('error' in built) return skip(`building the reflective dataset failed: ${errorMessage(built.error)}`);
  const strategy = strategyOf(view);
  const asks = attempt(strategy, () => strategy.ask(reflectionInput({ ...view, dataset: built.dataset })));
  if ('failed' in asks) return skip(asks.failed);
  const problem = asksProblem(asks);
  if (problem !== null) return skip(`reflection strategy '${strategy.name}' ${problem}`);
  return { kind: 'go-on', dataset: built.dataset, reflecting: round(0, asks, undefined, {}) };
}

/** The run with reply `index` in its place. */
export function withReply(run: ReflectionRun, index: number, reply: ReflectionReply): ReflectionRun {
  return { ...run, replies: run.replies.map((r, i) => (i === index ? reply : r)) };
}

/** Every request of the round has its reply. */
export const roundAnswered = (run: ReflectionRun | undefined): boolean => run !== undefined && run.replies.every((r) => r !== undefined);

/** Where a round led: another round to ask for, or the child made of the new texts, or a skip (with the run as it ends, when the length rule refused it). */
export type AfterRound = { kind: 'ask'; reflecting: ReflectionRun } | ({ kind: 'go-on' } & HashedChild) | { kind: 'skip'; reason: string; reflecting?: ReflectionRun };

/** Why new texts cannot be used, or null (a strategy written in JavaScript gets no type check). */
function textsProblem(texts: unknown, components: readonly string[]): string | null {
  if (typeof texts !== 'object' || texts === null || Array.isArray(texts)) return `returned ${JSON.stringify(texts)} as texts, not texts by component`;
  for (const [name, text] of Object.entries(texts)) {
    if (!components.includes(name)) return `returned a text for ${JSON.stringify(name)}, not a component to rewrite (${components.join(', ')})`;
    if (typeof text !== 'string') return `returned a text for ${JSON.stringify(name)} that is not a string`;
  }
  return null;
}

/** New texts as one reply per component to rewrite: its text, or why it has none. */
function componentReplies(read: NewTexts, components: readonly string[]): ComponentReply[] {
  return components.map((name) => {
    const text = read.texts[name];
    return text !== undefined && text.trim() !== '' ? { text, note: 'unchanged text' } : { text: null, note: read.notes?.[name] ?? 'no text proposed' };
  });
}

/** A round with every reply: the strategy reads it, and says what comes next. */
export function afterRound(view: ReflectionView, run: ReflectionRun): AfterRound {
  const limit = view.reflection?.maxCandidateLength;
  if (run.lengthRetry && limit !== undefined) {
    const after = afterRetry(run.lengthRetry, view.components, run.replies as ReflectionReply[], limit);
    if ('refused' in after) return { kind: 'skip', reason: after.refused, reflecting: { ...run, tooLong: { sentBack: run.lengthRetry.sentBack.length, refused: true } } };
    return afterReflection(view.parent, view.components, after.texts);
  }
  const strategy = strategyOf(view);
  const input = reflectionInput(view);
  const replies = run.replies as ReflectionReply[];
  const read = attempt<ReflectionRead>(strategy, () => strategy.read(replies, input, { index: run.round, asks: run.asks, ...(run.state === undefined ? {} : { state: run.state }) }));
  if (typeof read !== 'object' || read === null) return namedSkip(strategy, `returned ${JSON.stringify(read)} from read, not texts, more requests or a failure`);
  if ('failed' in read) return skip(String(read.failed));
  if ('ask' in read) {
    const problem = asksProblem(read.ask);
    return problem === null ? { kind: 'ask', reflecting: round(run.round + 1, read.ask, read.state, run.prompts) } : namedSkip(strategy, problem);
  }
  const problem = textsProblem((read as Partial<NewTexts>).texts, view.components);
  if (problem !== null) return namedSkip(strategy, problem);
  const texts = componentReplies(read, view.components);
  // maxCandidateLength: a text over it goes back to the reflection model once, before any evaluation.
  const sentBack = overLimit(view.parent, view.components, texts, limit);
  if (sentBack.length > 0 && limit !== undefined) {
    const retry = round(run.round + 1, retryAsks(sentBack, view.components, texts, limit), undefined, run.prompts);
    return { kind: 'ask', reflecting: { ...retry, lengthRetry: { texts, sentBack }, tooLong: { sentBack: sentBack.length, refused: false } } };
  }
  return afterReflection(view.parent, view.components, texts);
}

/** What a reflection produced, as gepa's `on_proposal_end` reports it: the texts that changed, and the prompt sent per component. */
export function reflectionOutcome(run: ReflectionRun | undefined, parent: Candidate, child: Candidate, components: readonly string[]): { newTexts: Record<string, string>; prompts?: Record<string, string> } {
  const newTexts: Record<string, string> = {};
  for (const name of components) if (child[name] !== undefined && child[name] !== parent[name]) newTexts[name] = child[name];
  const prompts = run?.prompts ?? {};
  return Object.keys(prompts).length === 0 ? { newTexts } : { newTexts, prompts };
}
