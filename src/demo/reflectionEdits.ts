// The simulated reflection LM's judgement: given the current prompt and the feedback, which edit
// it makes. Usually it adds a rule for the convention the failures point to (replacing a
// contradicting rule half the time); sometimes it adds filler, a misleading rule or a rule about
// one ticket, or drops a sentence while rewriting. Imperfect on purpose, like a real LM.
import type { Rng } from '../gepa/core/rng.js';
import { CONVENTION_BY_SKILL, type SkillKey } from './conventions.js';
import { parsePromptCached, type ParsedPrompt } from './promptRules.js';
import type { ReflectionRequest } from './reflectionPromptReader.js';
import { appendSentence, removeSentence } from './sentenceEdits.js';
import {
  ACCURACY_PHRASINGS,
  FEEDBACK_CUES,
  FILLER_SENTENCES,
  INTRO_SENTENCES,
  RULE_PHRASINGS,
  WRONG_TURNS,
} from './rulePhrasings.js';

export interface ProposedEdit {
  text: string;
  /** One line on what changed, for the reply's preamble. */
  note: string;
}

type Issue = SkillKey | 'accuracy';

// Cumulative probabilities of the edit kinds when the feedback shows failures.
const P_FIX = 0.65;
const P_FILLER = 0.75;
const P_MISLEADING = 0.82;
const P_OVERFIT = 0.9; // the rest: rewrite, dropping a sentence

/** Issues the failed answers point to, most frequent first (ties in cue order). */
function issuesIn(request: ReflectionRequest): Issue[] {
  const counts = new Map<Issue, number>();
  for (const record of request.records) {
    if (!record.failed) continue;
    const lower = record.feedback.toLowerCase();
    for (const [cue, issue] of FEEDBACK_CUES) if (lower.includes(cue)) counts.set(issue, (counts.get(issue) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([issue]) => issue);
}

/** Issues the current text does not already handle the way the feedback asks. */
function openIssues(issues: readonly Issue[], current: ParsedPrompt): Issue[] {
  return issues.filter((issue) => {
    if (issue === 'accuracy') return current.accuracy === undefined;
    const convention = CONVENTION_BY_SKILL.get(issue);
    return convention !== undefined && current.rules.get(convention.slot)?.convention !== convention;
  });
}

function phrase(rng: Rng, issue: Issue): string {
  return rng.pick(issue === 'accuracy' ? ACCURACY_PHRASINGS : RULE_PHRASINGS[issue] ?? ACCURACY_PHRASINGS);
}

/** Adds (or, half the time, substitutes for a contradicting rule) a rule for each issue. */
function fix(text: string, current: ParsedPrompt, issues: readonly Issue[], rng: Rng): string {
  let out = text;
  for (const issue of issues) {
    const sentence = phrase(rng, issue);
    const convention = issue === 'accuracy' ? undefined : CONVENTION_BY_SKILL.get(issue);
    const contradicting = convention && current.rules.get(convention.slot);
    out =
      contradicting && rng.next() < 0.5 && out.includes(contradicting.sentence)
        ? out.replace(contradicting.sentence, sentence)
        : appendSentence(out, sentence);
  }
  return out;
}

function describeIssues(issues: readonly Issue[]): string {
  return issues
    .map((i) => (i === 'accuracy' ? 'more careful arithmetic' : CONVENTION_BY_SKILL.get(i)?.describe ?? i))
    .join(' and ');
}

export function proposeEdit(request: ReflectionRequest, rng: Rng): ProposedEdit {
  const text = request.currentText;
  const current = parsePromptCached(text);
  const open = openIssues(issuesIn(request), current);
  const failures = request.records.filter((r) => r.failed);
  const r = rng.next();
  let edit: ProposedEdit | undefined;

  if (open.length > 0 && r < P_FIX) {
    const chosen = open.slice(0, open.length > 1 && rng.next() < 0.5 ? 2 : 1);
    edit = {
      text: fix(text, current, chosen, rng),
      note: `the answers need ${describeIssues(chosen)}, which the current text does not make clear, so I spelled it out`,
    };
  } else if (failures.length > 0 && r >= P_FILLER && r < P_MISLEADING) {
    const wrong = rng.pick(WRONG_TURNS);
    edit = { text: appendSentence(text, phrase(rng, wrong)), note: 'the output format was inconsistent, so I pinned it down' };
  } else if (r >= P_MISLEADING && r < P_OVERFIT) {
    const example = failures.find((f) => f.ticket !== undefined && f.expected !== undefined);
    if (example) {
      edit = {
        text: appendSentence(text, `For ticket #${example.ticket} the correct answer is "${example.expected}".`),
        note: 'I added the case from the feedback so the model gets it right',
      };
    }
  } else if (r >= P_OVERFIT && current.sentences.length > 1) {
    // Rewrites drop a sentence (useful or not) and usually fix one issue on the way.
    let rewritten = removeSentence(text, rng.pick(current.sentences.slice(1)));
    if (open.length > 0) rewritten = fix(rewritten, parsePromptCached(rewritten), open.slice(0, 1), rng);
    edit = { text: rewritten, note: 'I tightened the instruction and removed a sentence that looked redundant' };
  } else if (r >= P_OVERFIT) {
    const intro = INTRO_SENTENCES.find((s) => !text.includes(s)) ?? INTRO_SENTENCES[0] as string;
    const rest = open.length > 0 ? fix('', current, open.slice(0, 1), rng) : '';
    edit = { text: appendSentence(intro, rest).trim(), note: 'I rewrote the instruction to be more specific' };
  }

  if (edit === undefined || edit.text.trim() === text.trim()) {
    const unused = FILLER_SENTENCES.filter((s) => !text.includes(s));
    const filler = unused.length > 0 ? rng.pick(unused) : phrase(rng, 'accuracy');
    const note = failures.length > 0
      ? 'I added general guidance so the model is more careful'
      : 'the answers look right; I only made the guidance a little clearer';
    edit = { text: appendSentence(text, filler), note };
  }
  return edit;
}
