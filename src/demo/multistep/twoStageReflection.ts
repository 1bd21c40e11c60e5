// The simulated reflection LM of the two-stage task: reads the reflection prompt GEPA sends (the
// component's name, its current text, the examples' feedback), finds the most frequent failure
// the feedback names, and edits like a real LM would: usually adds the right rule in the right
// component, sometimes a vague or a wrong one, a rule meant for the other stage, a rewording of
// a rule it already has, or a rewrite that drops a sentence. When the feedback asks for what a
// rule already says, it looks for the instruction in the text that contradicts it.
import { Rng } from '../../gepa/core/rng.js';
import type { LanguageModel } from '../../gepa/core/languageModel.js';
import { createSimulatedReflectionModel } from '../demoReflectionModel.js';
import { readReflectionPrompt, type ReflectionRequest } from '../reflectionPromptReader.js';
import { appendSentence, removeSentence } from '../sentenceEdits.js';
import type { LatencyModel } from '../simulatedLatency.js';
import { parseStagePromptCached, type StagePrompt } from './stagePrompt.js';
import { ruleOf, STAGE_RULES, VAGUE_SENTENCES, type Stage, type StageRule } from './stageRules.js';

export interface TwoStageReflectionOptions extends LatencyModel {
  seed: number;
}

export interface TwoStageEdit {
  text: string;
  note: string;
}

/**
 * Cumulative probabilities of the edit kinds when the feedback shows failures: fix the top issue,
 * add a vague sentence, a misread rule, reword one; the rest, a rewrite that drops a sentence and
 * fixes the top issue. The hotel task's reflection model edits in the same shares.
 */
export const EDIT_SHARES = { fix: 0.55, vague: 0.63, wrong: 0.71, rephrase: 0.81 } as const;
const { fix: P_FIX, vague: P_VAGUE, wrong: P_WRONG, rephrase: P_REPHRASE } = EDIT_SHARES;
/** Chance of taking a failure of the other stage for one of this component's. */
const P_MISATTRIBUTE = 0.1;
const COMPONENT = /the component `([^`]+)`/;

/** Rules the failed examples' feedback points to, most frequent first. */
function issuesIn(request: ReflectionRequest): StageRule[] {
  const counts = new Map<StageRule, number>();
  for (const record of request.records) {
    if (!record.failed) continue;
    const lower = record.feedback.toLowerCase();
    for (const rule of STAGE_RULES) if (lower.includes(rule.cue)) counts.set(rule, (counts.get(rule) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([rule]) => rule);
}

/** Whether the text already does what the feedback asks for this rule (stated, right, no clash). */
function handled(rule: StageRule, current: StagePrompt): boolean {
  const stated = current.stated.get(rule.id);
  return stated !== undefined && !stated.wrong && !current.clashing.has(rule.id);
}

/** The broad sentence that clashes with `rule` in the text, if any. */
function clashingSentence(rule: StageRule, current: StagePrompt): { rule: StageRule; sentence: string } | undefined {
  for (const other of STAGE_RULES) {
    if (!other.conflict || (other.id !== rule.id && other.conflict.with !== rule.id)) continue;
    const stated = current.stated.get(other.id);
    if (stated && current.clashing.has(other.id)) return { rule: other, sentence: stated.sentence };
  }
  return undefined;
}

function fix(text: string, current: StagePrompt, rule: StageRule, rng: Rng): string {
  const stated = current.stated.get(rule.id);
  const clash = clashingSentence(rule, current);
  if (stated && !stated.wrong && clash) {
    const scoped = clash.rule.conflict?.scopedPhrasings ?? [];
    return rng.next() < 0.7 && scoped.length > 0 ? text.replace(clash.sentence, rng.pick(scoped)) : removeSentence(text, clash.sentence);
  }
  const sentence = rng.pick(rule.phrasings);
  if (stated && rng.next() < 0.7 && text.includes(stated.sentence)) return text.replace(stated.sentence, sentence);
  return appendSentence(text, sentence);
}

function rephrase(text: string, current: StagePrompt, stage: Stage, rng: Rng): string | undefined {
  const stated = [...current.stated.entries()];
  if (stated.length === 0) return undefined;
  const [id, { sentence }] = rng.pick(stated);
  const replacement = rng.next() < 0.25 ? rng.pick(VAGUE_SENTENCES[stage]) : rng.pick(ruleOf(id).phrasings);
  return text.replace(sentence, replacement);
}

function unusedVague(text: string, stage: Stage, rng: Rng): string {
  const unused = VAGUE_SENTENCES[stage].filter((s) => !text.includes(s));
  return appendSentence(text, unused.length > 0 ? rng.pick(unused) : rng.pick(VAGUE_SENTENCES[stage]));
}

export function proposeTwoStageEdit(component: string, request: ReflectionRequest, rng: Rng): TwoStageEdit {
  const stage: Stage = component === 'answer' ? 'answer' : 'planner';
  const text = request.currentText;
  const current = parseStagePromptCached(text, stage);
  const misattribute = rng.next() < P_MISATTRIBUTE;
  const open = issuesIn(request).filter((rule) => (rule.stage === stage ? !handled(rule, current) : misattribute));
  const failures = request.records.some((r) => r.failed);
  const r = rng.next();
  let edit: TwoStageEdit | undefined;
  const top = open[0];

  if (top && r < P_FIX) {
    let out = fix(text, current, top, rng);
    const second = open[1];
    if (second && rng.next() < 0.3) out = fix(out, parseStagePromptCached(out, stage), second, rng);
    edit = { text: out, note: `the feedback keeps saying that ${top.reason}, which the current text does not get across, so I spelled it out` };
  } else if (failures && r < P_VAGUE) {
    edit = { text: unusedVague(text, stage, rng), note: 'the steps were not followed consistently, so I made the guidance clearer' };
  } else if (failures && r < P_WRONG) {
    const wrongs = STAGE_RULES.filter((x) => x.stage === stage && x.wrongPhrasings);
    const misread = top?.wrongPhrasings ? top : wrongs.length > 0 ? rng.pick(wrongs) : undefined;
    if (misread?.wrongPhrasings) edit = { text: appendSentence(text, rng.pick(misread.wrongPhrasings)), note: 'the outputs disagree with the expected answers, so I pinned down the convention' };
  } else if (r < P_REPHRASE || !failures) {
    const out = rephrase(text, current, stage, rng);
    if (out !== undefined) edit = { text: out, note: 'I reworded an instruction to make it easier to follow' };
  } else if (current.sentences.length > 1) {
    let out = removeSentence(text, rng.pick(current.sentences.slice(1)));
    if (top) out = fix(out, parseStagePromptCached(out, stage), top, rng);
    edit = { text: out, note: 'I tightened the text and removed a sentence that looked redundant' };
  }

  if (edit === undefined || edit.text.trim() === text.trim()) {
    edit = { text: unusedVague(text, stage, rng), note: failures ? 'I added general guidance' : 'the answers look right; I only made the guidance a little clearer' };
  }
  return edit;
}

export function createTwoStageReflectionModel(options: TwoStageReflectionOptions): LanguageModel {
  return createSimulatedReflectionModel(options, (prompt, rng) => proposeTwoStageEdit(COMPONENT.exec(prompt)?.[1] ?? 'planner', readReflectionPrompt(prompt), rng));
}
