// The simulated reflection LM of the record task: reads the current prompt (the first fenced
// block) and the mismatches in the side information ("field: got 'x', expected 'y'"), counts
// which fields fail most, and edits like a real LM would, in the shares the other bench tasks'
// models use: usually states the most-failed field's rule (replacing a wrong statement of it),
// sometimes a vague sentence, a misread (wrong) rule, a rewording, or a rewrite that drops a
// sentence. With no current text (a seedless start) it writes a first prompt of one rule.
import type { Rng } from '../../gepa/core/rng.js';
import type { LanguageModel } from '../../gepa/core/languageModel.js';
import { createSimulatedReflectionModel, type DemoReflectionModelOptions } from '../demoReflectionModel.js';
import { EDIT_SHARES } from '../multistep/twoStageReflection.js';
import type { ProposedEdit } from '../reflectionEdits.js';
import { readReflectionPrompt } from '../reflectionPromptReader.js';
import { appendSentence, removeSentence } from '../sentenceEdits.js';
import { parseRulePromptCached, type RulePrompt } from './recordPrompt.js';
import { RECORD_RULES, RECORD_SEED_PROMPT, ruleOfField, VAGUE_RECORD_SENTENCES, type RecordRule } from './recordRules.js';

const MISMATCH = /^\s*([a-z_]+): got '[^']*', expected '[^']*'/gm;

/** Fields the side information reports wrong, most frequent first (ties in rule order), still open in the text. */
function failingRules(sideInfo: string, current: RulePrompt): RecordRule[] {
  const counts = new Map<RecordRule, number>();
  for (const m of sideInfo.matchAll(MISMATCH)) {
    const rule = ruleOfField(m[1] as string);
    if (rule) counts.set(rule, (counts.get(rule) ?? 0) + 1);
  }
  const open = (rule: RecordRule) => current.stated.get(rule.field)?.wrong !== false;
  return [...counts.entries()]
    .filter(([rule]) => open(rule))
    .sort((a, b) => b[1] - a[1] || RECORD_RULES.indexOf(a[0]) - RECORD_RULES.indexOf(b[0]))
    .map(([rule]) => rule);
}

function state(text: string, current: RulePrompt, rule: RecordRule, sentence: string): string {
  const stated = current.stated.get(rule.field);
  return stated && text.includes(stated.sentence) ? text.replace(stated.sentence, sentence) : appendSentence(text, sentence);
}

export function proposeRecordEdit(prompt: string, rng: Rng): ProposedEdit {
  const text = readReflectionPrompt(prompt).currentText;
  if (text === '') return { text: appendSentence(RECORD_SEED_PROMPT, rng.pick(RECORD_RULES[0]?.phrasings ?? [])), note: 'a first prompt for the objective' };
  const current = parseRulePromptCached(text);
  const sideInfo = prompt.slice(prompt.indexOf(text) + text.length);
  const failing = failingRules(sideInfo, current);
  const failures = MISMATCH.test(sideInfo);
  MISMATCH.lastIndex = 0;
  const [top, second] = failing;
  const r = rng.next();
  let edit: ProposedEdit | undefined;
  if (top && r < EDIT_SHARES.fix) {
    let out = state(text, current, top, rng.pick(top.phrasings));
    if (second && rng.next() < 0.3) out = state(out, parseRulePromptCached(out), second, rng.pick(second.phrasings));
    edit = { text: out, note: `the ${top.field} field keeps coming out wrong, so I stated its format` };
  } else if (failures && r < EDIT_SHARES.vague) {
    const unused = VAGUE_RECORD_SENTENCES.filter((s) => !text.includes(s));
    edit = { text: appendSentence(text, rng.pick(unused.length > 0 ? unused : VAGUE_RECORD_SENTENCES)), note: 'the output was inconsistent, so I asked for more care' };
  } else if (failures && r < EDIT_SHARES.wrong) {
    const misread = top ?? rng.pick(RECORD_RULES);
    edit = { text: state(text, current, misread, rng.pick(misread.wrongPhrasings)), note: `I pinned down the ${misread.field} format` };
  } else if (r < EDIT_SHARES.rephrase || !failures) {
    const stated = [...current.stated.entries()];
    if (stated.length > 0) {
      const [field, { sentence }] = rng.pick(stated);
      const rule = ruleOfField(field) as RecordRule;
      edit = { text: text.replace(sentence, rng.pick(rule.phrasings)), note: 'I reworded a rule to make it clearer' };
    }
  } else if (current.sentences.length > 1) {
    let out = removeSentence(text, rng.pick(current.sentences.slice(1)));
    if (top) out = state(out, parseRulePromptCached(out), top, rng.pick(top.phrasings));
    edit = { text: out, note: 'I tightened the prompt and removed a sentence that looked redundant' };
  }
  if (edit === undefined || edit.text.trim() === text.trim()) {
    const unused = VAGUE_RECORD_SENTENCES.filter((s) => !text.includes(s));
    edit = { text: appendSentence(text, rng.pick(unused.length > 0 ? unused : VAGUE_RECORD_SENTENCES)), note: 'I added general guidance' };
  }
  return edit;
}

export function createRecordReflectionModel(options: DemoReflectionModelOptions): LanguageModel {
  return createSimulatedReflectionModel(options, proposeRecordEdit);
}
