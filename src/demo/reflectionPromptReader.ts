// What the simulated reflection LM takes from its prompt: the current text (the first fenced
// block) and, per example, the feedback (the text under a "Feedback" heading) with the ticket
// number and expected answer it mentions. Falls back to the whole example, or the whole prompt,
// when the headings are not the ones buildReflectionPrompt writes.

const FENCE = '```';
const HEADING = /^(#{1,6})\s+(.*)$/;
const EXAMPLE_START = /\n(?=# )/;
const TICKET = /#(\d{3,6})\b/;
const EXPECTED = /Expected (.+?) but got /;
const TAG_LINE = /^[\w.+-]{0,20}$/;

export interface ReflectionRecord {
  feedback: string;
  ticket: string | undefined;
  expected: string | undefined;
  failed: boolean;
}

export interface ReflectionRequest {
  currentText: string;
  records: ReflectionRecord[];
}

function feedbackOf(block: string): string {
  const lines = block.split('\n');
  const kept: string[] = [];
  let level = 0; // > 0 while inside a feedback section
  for (const line of lines) {
    const heading = HEADING.exec(line);
    if (heading) {
      const depth = (heading[1] as string).length;
      if (level > 0 && depth <= level) level = 0;
      if (level === 0 && /feedback/i.test(heading[2] as string)) {
        level = depth;
        continue;
      }
    }
    if (level > 0) kept.push(line);
  }
  return kept.length > 0 ? kept.join('\n').trim() : block;
}

function toRecord(block: string): ReflectionRecord {
  const feedback = feedbackOf(block);
  const expected = EXPECTED.exec(feedback)?.[1];
  return { feedback, ticket: TICKET.exec(block)?.[1], expected, failed: expected !== undefined };
}

export function readReflectionPrompt(prompt: string): ReflectionRequest {
  const open = prompt.indexOf(FENCE);
  const close = open === -1 ? -1 : prompt.indexOf(FENCE, open + FENCE.length);
  let currentText = '';
  let body = prompt;
  if (close !== -1) {
    let inner = prompt.slice(open + FENCE.length, close);
    const newline = inner.indexOf('\n');
    if (newline !== -1 && TAG_LINE.test(inner.slice(0, newline).trim())) inner = inner.slice(newline + 1);
    currentText = inner.trim();
    body = prompt.slice(close + FENCE.length);
  }
  const blocks = body.split(EXAMPLE_START).filter((b) => b.startsWith('# '));
  const records = (blocks.length > 0 ? blocks : [body]).map(toRecord);
  return { currentText, records };
}
