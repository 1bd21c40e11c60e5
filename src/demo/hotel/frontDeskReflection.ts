// The simulated reflection LM of the hotel task: reads the reflection prompt GEPA sends (the
// current text, the examples' feedback), counts the facts the feedback says replies missed or
// got wrong and the facts it says replies brought up unasked, and edits like a real LM would:
// usually adds the most-missed fact (or, when unasked facts are the top complaint, drops one or
// asks to keep to the question), sometimes a vague sentence, a misread fact, a rewording, or a
// rewrite that drops a sentence.
import { Rng } from '../../gepa/core/rng.js';
import type { LanguageModel } from '../../gepa/core/languageModel.js';
import { createSimulatedReflectionModel, type DemoReflectionModelOptions } from '../demoReflectionModel.js';
import { readReflectionPrompt, type ReflectionRequest } from '../reflectionPromptReader.js';
import { appendSentence, removeSentence } from '../sentenceEdits.js';
import type { ProposedEdit } from '../reflectionEdits.js';
import { EDIT_SHARES } from '../multistep/twoStageReflection.js';
import { parseFactPromptCached, type FactPrompt } from './factPrompt.js';
import { FOCUS_PHRASINGS, HOTEL_FACTS, VAGUE_SENTENCES, type HotelFact } from './hotelFacts.js';

const { fix: P_FIX, vague: P_VAGUE, wrong: P_WRONG, rephrase: P_REPHRASE } = EDIT_SHARES;
/** Asked to cut an unasked fact, how often it deletes the fact's sentence (else asks for focus). */
const P_DROP_UNASKED = 0.5;

interface Issue {
  fact: HotelFact;
  /** 'missing': replies missed it or got it wrong; 'unasked': replies brought it up unasked. */
  kind: 'missing' | 'unasked';
  count: number;
}

const isFailure = (feedback: string) => !/^correct\b/i.test(feedback.trim());

/** What the failed examples' feedback complains about, most frequent first (ties in fact order). */
function issuesIn(request: ReflectionRequest): Issue[] {
  const issues = new Map<string, Issue>();
  const count = (fact: HotelFact, kind: Issue['kind']) => {
    const key = `${kind}:${fact.id}`;
    const issue = issues.get(key) ?? { fact, kind, count: 0 };
    issue.count++;
    issues.set(key, issue);
  };
  for (const record of request.records) {
    if (!isFailure(record.feedback)) continue;
    const lower = record.feedback.toLowerCase();
    for (const fact of HOTEL_FACTS) {
      if (lower.includes(fact.truth.toLowerCase())) count(fact, 'missing');
      if (lower.includes(`did not ask about ${fact.topic.toLowerCase()}`)) count(fact, 'unasked');
    }
  }
  return [...issues.values()].sort((a, b) => b.count - a.count);
}

/** Whether the text still leaves the issue open. */
function open(issue: Issue, current: FactPrompt): boolean {
  const stated = current.stated.get(issue.fact.id);
  return issue.kind === 'missing' ? stated === undefined || stated.wrong : stated !== undefined || !current.focused;
}

function fix(text: string, current: FactPrompt, issue: Issue, rng: Rng): string {
  const stated = current.stated.get(issue.fact.id);
  if (issue.kind === 'unasked') {
    if (stated && (current.focused || rng.next() < P_DROP_UNASKED)) return removeSentence(text, stated.sentence);
    return current.focused ? text : appendSentence(text, rng.pick(FOCUS_PHRASINGS));
  }
  const sentence = rng.pick(issue.fact.phrasings);
  if (stated && text.includes(stated.sentence)) return text.replace(stated.sentence, sentence);
  return appendSentence(text, sentence);
}

function rephrase(text: string, current: FactPrompt, rng: Rng): string | undefined {
  const stated = [...current.stated.entries()];
  if (stated.length === 0) return undefined;
  const [id, { sentence }] = rng.pick(stated);
  const fact = HOTEL_FACTS.find((f) => f.id === id) as HotelFact;
  return text.replace(sentence, rng.next() < 0.25 ? rng.pick(VAGUE_SENTENCES) : rng.pick(fact.phrasings));
}

function unusedVague(text: string, rng: Rng): string {
  const unused = VAGUE_SENTENCES.filter((s) => !text.includes(s));
  return appendSentence(text, rng.pick(unused.length > 0 ? unused : VAGUE_SENTENCES));
}

const describe = (issue: Issue) => (issue.kind === 'missing' ? `replies keep missing that ${issue.fact.truth}` : `replies bring up ${issue.fact.topic} when nobody asked`);

export function proposeProposedEdit(request: ReflectionRequest, rng: Rng): ProposedEdit {
  const text = request.currentText;
  const current = parseFactPromptCached(text);
  const issues = issuesIn(request).filter((issue) => open(issue, current));
  const failures = request.records.some((r) => isFailure(r.feedback));
  const r = rng.next();
  let edit: ProposedEdit | undefined;
  const top = issues[0];

  if (top && r < P_FIX) {
    let out = fix(text, current, top, rng);
    const second = issues[1];
    if (second && rng.next() < 0.3) out = fix(out, parseFactPromptCached(out), second, rng);
    edit = { text: out, note: `${describe(top)}, so I changed the instruction accordingly` };
  } else if (failures && r < P_VAGUE) {
    edit = { text: unusedVague(text, rng), note: 'the replies were not always reliable, so I made the guidance clearer' };
  } else if (failures && r < P_WRONG) {
    const missing = issues.find((i) => i.kind === 'missing')?.fact ?? rng.pick(HOTEL_FACTS);
    edit = { text: appendSentence(text, rng.pick(missing.wrongPhrasings)), note: 'the replies disagreed with the hotel’s information, so I pinned it down' };
  } else if (r < P_REPHRASE || !failures) {
    const out = rephrase(text, current, rng);
    if (out !== undefined) edit = { text: out, note: 'I reworded an instruction to make it easier to follow' };
  } else if (current.sentences.length > 1) {
    let out = removeSentence(text, rng.pick(current.sentences.slice(1)));
    if (top) out = fix(out, parseFactPromptCached(out), top, rng);
    edit = { text: out, note: 'I tightened the text and removed a sentence that looked redundant' };
  }

  if (edit === undefined || edit.text.trim() === text.trim()) {
    edit = { text: unusedVague(text, rng), note: failures ? 'I added general guidance' : 'the replies look right; I only made the guidance a little clearer' };
  }
  return edit;
}

export function createFrontDeskReflectionModel(options: DemoReflectionModelOptions): LanguageModel {
  return createSimulatedReflectionModel(options, (prompt, rng) => proposeProposedEdit(readReflectionPrompt(prompt), rng));
}
