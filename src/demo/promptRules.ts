// Reading a system prompt the way the simulated models do: split it into sentences, find the
// sentences that state a convention (keywords, not exact wording), keep the FIRST one per slot
// (a weak instruction follower obeys whichever conflicting rule it reads first), note
// ticket-specific answers and clutter. Parses are cached by text: the optimizer re-sends the same
// prompt thousands of times.
import {
  ACCURACY_KEYWORDS,
  CONVENTIONS,
  type ConventionOption,
  type Slot,
} from './conventions.js';
import { boundedMemo } from './boundedMemo.js';
import { hashString } from './hash32.js';

export interface StatedRule {
  convention: ConventionOption;
  /** The sentence as written in the prompt. */
  sentence: string;
}

export interface ParsedPrompt {
  text: string;
  /** Unseeded hash of the exact text: any edit changes the model's sampling. */
  hash: number;
  sentences: string[];
  /** The first rule stated per slot. */
  rules: ReadonlyMap<Slot, StatedRule>;
  /** Sentences that state a rule for a slot already covered earlier (ignored by the model). */
  shadowed: StatedRule[];
  /** Sentence asking for careful arithmetic, if any. */
  accuracy: string | undefined;
  /** ticket number -> answer the prompt dictates for it. */
  ticketAnswers: ReadonlyMap<string, string>;
  /** 0 for a tidy prompt; grows with sentence count and length past what the model handles well. */
  clutter: number;
}

/** Prompts beyond this many sentences or characters start to confuse the simulated model. */
export const TIDY_SENTENCES = 12;
export const TIDY_CHARS = 1500;

const SENTENCE_END = /(?<=[.!?])\s+|\n+/;
const LIST_MARKER = /^[-*•]\s+|^\d+[.)]\s+/;
const HAS_LETTER = /[a-z]/i;
const NEGATION_STARTS = ['do not ', "don't ", 'never ', 'avoid '];
const TICKET_RULE = /#(\d{3,6})\b.*?\banswer\b[^"“]*?(?:is|:|=)\s*["“]?([^"”]+?)["”]?\.?\s*$/i;

/** Position of the earliest keyword of each group in `lower`, or -1 if a group is absent. */
export function matchPosition(lower: string, groups: ReadonlyArray<readonly string[]>): number {
  let last = -1;
  for (const group of groups) {
    last = -1;
    for (const keyword of group) {
      const at = lower.indexOf(keyword);
      if (at !== -1 && (last === -1 || at < last)) last = at;
    }
    if (last === -1) return -1;
  }
  return last;
}

/** The convention a sentence states, if any (one per sentence per slot). */
export function conventionsIn(sentence: string): ConventionOption[] {
  const lower = sentence.toLowerCase();
  if (NEGATION_STARTS.some((n) => lower.startsWith(n))) return [];
  const best = new Map<Slot, { c: ConventionOption; at: number }>();
  for (const c of CONVENTIONS) {
    const at = matchPosition(lower, c.keywords);
    if (at === -1) continue;
    const prior = best.get(c.slot);
    if (!prior || at < prior.at) best.set(c.slot, { c, at });
  }
  return [...best.values()].map((b) => b.c);
}

export function splitSentences(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .map((s) => s.trim().replace(LIST_MARKER, ''))
    // "1." alone (a list number split off its item) is not a sentence.
    .filter((s) => HAS_LETTER.test(s));
}

export function parsePrompt(text: string): ParsedPrompt {
  const sentences = splitSentences(text);
  const rules = new Map<Slot, StatedRule>();
  const shadowed: StatedRule[] = [];
  const ticketAnswers = new Map<string, string>();
  let accuracy: string | undefined;
  for (const sentence of sentences) {
    const ticket = TICKET_RULE.exec(sentence);
    if (ticket) {
      if (!ticketAnswers.has(ticket[1] as string)) ticketAnswers.set(ticket[1] as string, (ticket[2] as string).trim());
      continue;
    }
    for (const convention of conventionsIn(sentence)) {
      const rule = { convention, sentence };
      if (rules.has(convention.slot)) shadowed.push(rule);
      else rules.set(convention.slot, rule);
    }
    if (accuracy === undefined && matchPosition(sentence.toLowerCase(), ACCURACY_KEYWORDS) !== -1) accuracy = sentence;
  }
  const clutter =
    0.025 * Math.max(0, sentences.length - TIDY_SENTENCES) + Math.max(0, text.length - TIDY_CHARS) / 25_000;
  return { text, hash: hashString(text), sentences, rules, shadowed, accuracy, ticketAnswers, clutter };
}

/** parsePrompt through a bounded cache (oldest entry evicted first). */
export const parsePromptCached: (text: string) => ParsedPrompt = boundedMemo(parsePrompt);
