// Pulls the new component text out of a reflection reply: the text between the first and the
// last ``` fence (minus a language tag on the opening line); with a single fence, the text on
// its far side; with none, the whole reply. Whitespace-only means "no proposal" (null).

const FENCE = '```';

function dropLanguageTag(block: string): string {
  const newline = block.indexOf('\n');
  if (newline === -1) return block;
  const firstLine = block.slice(0, newline).trim();
  // A tag is one word such as `text`, `markdown` or `md`; prose on that line is content.
  return /^[\w.+-]{1,20}$/.test(firstLine) ? block.slice(newline + 1) : block;
}

/**
 * The new component text in a reflection reply: between the first and the last ``` fence (minus a
 * language tag), or past a single fence, or the whole reply; null when that is only whitespace.
 */
export function extractInstruction(reply: string): string | null {
  const first = reply.indexOf(FENCE);
  const last = reply.lastIndexOf(FENCE);
  let text: string;
  if (first === -1) {
    text = reply;
  } else if (first === last) {
    // One fence: keep the side that carries the text (usually after an opening fence).
    const after = reply.slice(first + FENCE.length);
    const before = reply.slice(0, first);
    text = after.trim() !== '' ? dropLanguageTag(after) : before;
  } else {
    text = dropLanguageTag(reply.slice(first + FENCE.length, last));
  }
  const trimmed = text.trim();
  return trimmed === '' ? null : trimmed;
}
