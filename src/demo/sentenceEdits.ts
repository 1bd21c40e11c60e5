// Sentence-level text edits the simulated reflection LMs make to a prompt: append a sentence on
// its own line, or remove one and tidy the whitespace left behind.

export function appendSentence(text: string, sentence: string): string {
  const base = text.trimEnd();
  if (base === '') return sentence;
  return /[.!?:]$/.test(base) ? `${base}\n${sentence}` : `${base}.\n${sentence}`;
}

export function removeSentence(text: string, sentence: string): string {
  return text
    .replace(sentence, '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/ {2,}/g, ' ')
    .trim();
}
