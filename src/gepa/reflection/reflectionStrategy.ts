// The reflection strategy: how a reflective proposal turns its evidence into new component texts.
// Given the chosen parent, the components to rewrite and the reflective records (the parent's,
// and any other recent results the optimizer hands over), a strategy names the requests to make
// (reflection-model prompts, or one call of the user's proposeNewTexts, each run in a worker slot
// by the evaluator) and reads their replies into new texts, a further round of requests, or a
// failed proposal with its reason. Types only: the built-ins are one file each beside this one,
// chosen by name in reflectionStrategies.ts; reflectionRun.ts runs any of them.
// Room gepa/reflection/: imported by the machines and the rooms above gepa/ (config/, run/); it
// imports gepa/core/, gepa/strategies/ and gepa/proposer/ (the prompt, the child), never search/.
import type { Candidate, ReflectiveDataset } from '../core/adapter.js';
import type { PromptPart } from '../core/languageModel.js';
import type { ReflectionPromptTemplate } from '../strategies/hookSignatures.js';
import type { ReflectionContext } from '../proposer/reflectionPrompt.js';

/**
 * One more candidate's results a strategy may read beside its parent's: a recent child or parent
 * of another proposal, as the optimizer keeps them (a strategy that reads several proposals'
 * failures in one prompt). The optimizer owns that history; a proposer only passes it on.
 */
export interface ReflectionEvidence {
  /** The candidate that was evaluated. */
  candidate: Candidate;
  /** How it was met: as a proposal's parent, or as its child. */
  role: 'parent' | 'child';
  /** Its reflective records, per component (as the adapter's makeReflectiveDataset builds them). */
  dataset: ReflectiveDataset;
  /** Its scores on those records' examples, in the same order. */
  scores: readonly number[];
  /** The proposal it came from (`p<step>-<task>`), when known. */
  proposal?: string;
}

/** What the run says about reflecting, whatever the strategy: the run's options, passed to every call. */
export interface ReflectionOptions {
  /** The user's reflectionPromptTemplate, when given. */
  template?: ReflectionPromptTemplate;
  /** optimizeAnything's objective and background (the built-in prompt states them). */
  context?: ReflectionContext;
  /**
   * maxCandidateLength: the most characters (Unicode code points) a proposed component text may
   * have. The run enforces it on every strategy's texts (reflectionRun.ts); a strategy may state it.
   */
  maxCandidateLength?: number;
  /**
   * The run's perfectScore: a record scoring at or above it passes, below it fails (strategies that
   * tell failures apart, as 'combined', read it). Absent: 1, GEPA's perfect score.
   */
  perfectScore?: number;
}

/** What a strategy is given: the proposal's parent, the components it rewrites and the evidence. */
export interface ReflectionInput {
  /** The chosen parent. */
  parent: Candidate;
  /** The components to rewrite, in the order chosen (at least one). */
  components: readonly string[];
  /** The parent's reflective records per component: its results on the proposal's minibatch. */
  dataset: ReflectiveDataset;
  /** The parent's scores on the minibatch, in minibatch order. */
  scores: readonly number[];
  /** Other recent results the optimizer hands over (none unless the run keeps them), newest first. */
  evidence: readonly ReflectionEvidence[];
  /** The run's reflection options. */
  options: ReflectionOptions;
}

/** One request: a prompt for the reflection model, or one call of the user's proposeNewTexts. */
export type ReflectionAsk =
  | {
      /** Ask the reflection model. */
      kind: 'prompt';
      /** The prompt. */
      prompt: string;
      /** The prompt as parts, when it holds images (promptContent). */
      content?: readonly PromptPart[];
      /** The component this prompt rewrites, when it rewrites one: the run reports the prompt under its name (gepa's on_proposal_end). */
      component?: string;
    }
  | {
      /** Call the run's proposeNewTexts (it must have one). */
      kind: 'propose';
      /** The candidate whose texts it rewrites. */
      candidate: Candidate;
      /** Its reflective records, per component. */
      dataset: ReflectiveDataset;
      /** The components to rewrite. */
      components: readonly string[];
    };

/** One request's reply, in the order asked: a prompt's text, proposeNewTexts' answer as it came (unchecked), or why the call failed. */
export type ReflectionReply =
  | {
      /** The call succeeded. */
      ok: true;
      /** The reflection model's reply to a prompt, whole (`extractInstruction` reads the fenced text). */
      text: string;
    }
  | {
      /** The call succeeded. */
      ok: true;
      /** What proposeNewTexts returned, unchecked. */
      texts: unknown;
    }
  | {
      /** The call failed. */
      ok: false;
      /** Why, readable. */
      error: string;
    };

/**
 * New texts by component (only components to rewrite; a component left out gets no new text),
 * and, optionally, why a component got none (the proposal's reason when no text is new).
 */
export interface NewTexts {
  /** The new text of each component that has one. */
  texts: Readonly<Record<string, string>>;
  /** Why a component has no new text (e.g. 'empty reply'). */
  notes?: Readonly<Record<string, string>>;
}

/** More requests: a further round (a critic pass, a reduce step); `state` is plain JSON the next read is handed. */
export interface MoreAsks {
  /** The requests of the next round, in the order their replies will be handed over. */
  ask: readonly ReflectionAsk[];
  /** What the strategy needs to remember between rounds (plain JSON: it lives in the proposer's snapshot). */
  state?: unknown;
}

/** The proposal cannot go on: the reason becomes its record's. */
export interface FailedReflection {
  /** Why, in words. */
  failed: string;
}

/** Where a round's replies lead. */
export type ReflectionRead = NewTexts | MoreAsks | FailedReflection;

/** Which round a read answers: 0 for the first (`ask`'s requests), and the state the round before left. */
export interface ReflectionRound {
  /** 0 for `ask`'s requests, 1 for the first MoreAsks, ... */
  index: number;
  /** The requests this round made. */
  asks: readonly ReflectionAsk[];
  /** The state the read before left with MoreAsks (undefined in round 0). */
  state?: unknown;
}

/**
 * A way of reflecting. Both functions are pure and synchronous (the requests run in the
 * evaluator's slots, not here); they draw no randomness of their own, so a batched run stays a
 * function of its seed. A function that throws fails the proposal with the message. Objects with
 * functions live in the prepared run, never in a machine's snapshot: only the requests, replies
 * and `state` do.
 */
export interface ReflectionStrategy {
  /** Its name: what `reflectionStrategy` selects it by, and what errors and records call it. */
  readonly name: string;
  /**
   * How many recent results of other proposals it reads (ReflectionInput.evidence): the run keeps
   * that many, newest first, and hands them over. Absent or 0: none (the optimizer keeps no history).
   */
  readonly evidence?: number;
  /** The first round's requests (at least one), or why the proposal cannot go on. */
  ask(input: ReflectionInput): readonly ReflectionAsk[] | FailedReflection;
  /** A round's replies (in the order asked): the new texts, another round, or a failure. */
  read(replies: readonly ReflectionReply[], input: ReflectionInput, round: ReflectionRound): ReflectionRead;
}
