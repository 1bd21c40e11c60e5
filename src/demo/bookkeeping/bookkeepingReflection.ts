// The simulated reflection LM of the bookkeeping task, a capable model that fixes more when it is
// shown more kinds of failure. It reads the reflection prompt GEPA sends (the current text, each
// example's feedback), collects the house rules the feedback says entries broke and the current
// text does not already state rightly (the open failure kinds, k), and edits in the same shares of
// kinds as the hotel and multistep models: usually a fix, sometimes a generic sentence, a misread
// rule, a rewording, or a rewrite that drops a sentence.
//
// The model, and what it rests on:
// - **Fixes grow sublinearly with the failure kinds shown, and are capped.** A fix edit states
//   about sqrt(k) of the open rules (most often broken first; randomly rounded), at most
//   MAX_FIXES. A model given many distinct problems addresses the most salient and drops the rest:
//   ComBEE (Li et al. 2026, arXiv 2604.04247) measured that feeding a reflection many more traces
//   at once ("context overload") keeps broad patterns and loses specific insights, and built its
//   hierarchy on groups of about sqrt(n) traces for that reason; IFScale (Jaroslawicz et al. 2025,
//   arXiv 2507.11538) measured that models satisfy a shrinking share of instructions as more are
//   asked of them at once (omissions first).
// - **Context overload.** Past MANAGEABLE_RECORDS examples in one prompt, each fix is written as a
//   generic sentence instead (the lossy compression ComBEE describes) with a probability that
//   grows with the records (1/48 per record past the limit, at most one half): on its Formula
//   benchmark, a reflection batch of 100 instead of 3 ended 87.0% -> 72.5%.
// - **Latency grows with the prompt's tokens.** A reflection takes reflectionMs x jitter x
//   (1 - W + W x promptTokens / REFERENCE_PROMPT_TOKENS): REFERENCE_PROMPT_TOKENS is the size of a
//   three-example prompt with a mid-run text, so reflectionMs is the latency of GEPA's usual
//   reflection, and W = 0.5 is the share of that latency that scales with the prompt. For a
//   non-reasoning model prefill is a small share (OpenAI's latency guide: fewer input tokens
//   matter far less than fewer output tokens); reflection models in GEPA's papers are reasoning
//   models (gpt-5, o3 class), whose hidden reasoning grows with the evidence to weigh, so half is
//   taken, which counts a long prompt against wide reflections rather than for them.
import { Rng } from '../../gepa/core/rng.js';
import type { LanguageModel, LanguageModelContext, LmReply } from '../../gepa/core/languageModel.js';
import { createSimulatedReflectionModel, type DemoReflectionModelOptions } from '../demoReflectionModel.js';
import { hashString } from '../hash32.js';
import type { ProposedEdit } from '../reflectionEdits.js';
import { readReflectionPrompt, type ReflectionRequest } from '../reflectionPromptReader.js';
import { appendSentence, removeSentence } from '../sentenceEdits.js';
import { checkLatencyOptions, simulateLatency } from '../simulatedLatency.js';
import { EDIT_SHARES } from '../multistep/twoStageReflection.js';
import { GENERIC_SENTENCES, HOUSE_RULES, type HouseRule } from './houseRules.js';
import { parseRulePromptCached, type RulePrompt } from './rulePrompt.js';

const { fix: P_FIX, vague: P_VAGUE, wrong: P_WRONG, rephrase: P_REPHRASE } = EDIT_SHARES;

/** Most rules one edit fixes, however many failure kinds it is shown. */
export const MAX_FIXES = 4;
/** Examples one prompt can hold before fixes start to come out generic. */
export const MANAGEABLE_RECORDS = 12;
const OVERLOAD_PER_RECORD = 1 / 48;
const MAX_OVERLOAD = 0.5;
/** Tokens of a three-example reflection prompt with a mid-run text: the mean of the sequential loop's prompts, seeds 0-2 at 1,500 calls (673). */
export const REFERENCE_PROMPT_TOKENS = 670;
/** Share of a reflection's latency that grows with its prompt. */
export const PROMPT_LATENCY_SHARE = 0.5;

interface Issue {
  rule: HouseRule;
  /** Records whose feedback says the entry broke it. */
  count: number;
}

const isFailure = (feedback: string) => !/^correct\b/i.test(feedback.trim());

/** The rules the failed records' feedback names, most often named first (ties in rule order). */
function brokenRules(request: ReflectionRequest): Issue[] {
  const counts = new Map<HouseRule, number>();
  for (const record of request.records) {
    if (!isFailure(record.feedback)) continue;
    const lower = record.feedback.toLowerCase();
    for (const rule of HOUSE_RULES) if (lower.includes(rule.requirement.toLowerCase())) counts.set(rule, (counts.get(rule) ?? 0) + 1);
  }
  return [...counts.entries()].map(([rule, count]) => ({ rule, count })).sort((a, b) => b.count - a.count);
}

/** Expected fixes for k open failure kinds: sqrt(k), at most MAX_FIXES. */
export function expectedFixes(k: number): number {
  return Math.min(MAX_FIXES, Math.sqrt(k));
}

/** Chance that one fix comes out as a generic sentence, for a prompt of `records` examples. */
export function overloadLoss(records: number): number {
  return Math.min(MAX_OVERLOAD, Math.max(0, records - MANAGEABLE_RECORDS) * OVERLOAD_PER_RECORD);
}

/** How many of k open kinds one fix edit addresses: expectedFixes(k), randomly rounded. */
function fixCount(k: number, rng: Rng): number {
  const e = expectedFixes(k);
  return Math.floor(e) + (rng.next() < e - Math.floor(e) ? 1 : 0);
}

function stateRule(text: string, current: RulePrompt, rule: HouseRule, sentence: string): string {
  const stated = current.stated.get(rule.id);
  if (stated && text.includes(stated.sentence)) return text.replace(stated.sentence, sentence);
  return appendSentence(text, sentence);
}

function unusedGeneric(text: string, rng: Rng): string {
  const unused = GENERIC_SENTENCES.filter((s) => !text.includes(s));
  return appendSentence(text, rng.pick(unused.length > 0 ? unused : GENERIC_SENTENCES));
}

/** States each rule (replacing a wrong statement of it); an overloaded prompt turns some into a generic sentence. */
function fixAll(text: string, issues: readonly Issue[], loss: number, rng: Rng): string {
  let out = text;
  for (const { rule } of issues) {
    out = rng.next() < loss ? unusedGeneric(out, rng) : stateRule(out, parseRulePromptCached(out), rule, rng.pick(rule.phrasings));
  }
  return out;
}

function rephrase(text: string, current: RulePrompt, rng: Rng): string | undefined {
  const stated = [...current.stated.entries()];
  if (stated.length === 0) return undefined;
  const [id, { sentence }] = rng.pick(stated);
  const rule = HOUSE_RULES.find((r) => r.id === id) as HouseRule;
  return text.replace(sentence, rng.next() < 0.25 ? rng.pick(GENERIC_SENTENCES) : rng.pick(rule.phrasings));
}

export function proposeBookkeepingEdit(request: ReflectionRequest, rng: Rng): ProposedEdit {
  const text = request.currentText;
  const current = parseRulePromptCached(text);
  const open = brokenRules(request).filter(({ rule }) => {
    const stated = current.stated.get(rule.id);
    return stated === undefined || stated.wrong;
  });
  const failures = request.records.some((r) => isFailure(r.feedback));
  const loss = overloadLoss(request.records.length);
  const r = rng.next();
  let edit: ProposedEdit | undefined;

  if (open.length > 0 && r < P_FIX) {
    const chosen = open.slice(0, Math.max(1, fixCount(open.length, rng)));
    edit = { text: fixAll(text, chosen, loss, rng), note: `entries broke ${chosen.length === 1 ? 'a house rule' : `${chosen.length} house rules`} the text did not state, so I added them` };
  } else if (failures && r < P_VAGUE) {
    edit = { text: unusedGeneric(text, rng), note: 'the entries were not always reliable, so I made the guidance clearer' };
  } else if (failures && r < P_WRONG) {
    const rule = open[0]?.rule ?? rng.pick(HOUSE_RULES);
    edit = { text: stateRule(text, current, rule, rng.pick(rule.wrongPhrasings)), note: 'the entries disagreed with the house rules, so I pinned one down' };
  } else if (r < P_REPHRASE || !failures) {
    const out = rephrase(text, current, rng);
    if (out !== undefined) edit = { text: out, note: 'I reworded an instruction to make it easier to follow' };
  } else if (current.sentences.length > 1) {
    let out = removeSentence(text, rng.pick(current.sentences.slice(1)));
    if (open[0]) out = fixAll(out, open.slice(0, 1), loss, rng);
    edit = { text: out, note: 'I tightened the text and removed a sentence that looked redundant' };
  }

  if (edit === undefined || edit.text.trim() === text.trim()) {
    edit = { text: unusedGeneric(text, rng), note: failures ? 'I added general guidance' : 'the entries look right; I only made the guidance a little clearer' };
  }
  return edit;
}

/** The latency multiplier of a prompt of `tokens` tokens (1 at REFERENCE_PROMPT_TOKENS). */
export function promptLatencyFactor(tokens: number): number {
  return 1 - PROMPT_LATENCY_SHARE + (PROMPT_LATENCY_SHARE * tokens) / REFERENCE_PROMPT_TOKENS;
}

/** Tokens of a prompt, counted as the simulated models' usage counts them (4 characters a token). */
export const promptTokens = (prompt: string): number => Math.ceil(prompt.length / 4);

export function createBookkeepingReflectionModel(options: DemoReflectionModelOptions): LanguageModel {
  checkLatencyOptions('reflectionMs', options.meanMs, options.jitter);
  // The edit and the reply's wrapping come from the shared simulated model; the latency, which
  // grows with the prompt here, is slept before it on the same clock.
  const answer = createSimulatedReflectionModel({ ...options, meanMs: 0 }, (prompt, rng) => proposeBookkeepingEdit(readReflectionPrompt(prompt), rng));
  return async (prompt: string, ctx: LanguageModelContext): Promise<string | LmReply> => {
    const meanMs = options.meanMs * promptLatencyFactor(promptTokens(prompt));
    await simulateLatency({ ...options, meanMs }, hashString(prompt, options.seed), ctx?.signal);
    return answer(prompt, ctx);
  };
}
