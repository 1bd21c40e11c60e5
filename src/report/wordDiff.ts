// A small LCS diff for the report: how the best candidate's text differs from the seed's, word
// by word (whitespace kept as tokens so the text reads as written). Long texts fall back to a
// line diff, and very long ones to "all deleted, all inserted", to bound the quadratic table.

export interface DiffPart {
  op: 'same' | 'insert' | 'delete';
  text: string;
}

/** Above this many table cells the word diff is too slow or too big; lines are tried instead. */
const MAX_TABLE_CELLS = 4_000_000;

const words = (text: string): string[] => text.match(/\s+|[^\s]+/g) ?? [];
const lines = (text: string): string[] => text.match(/[^\n]*\n|[^\n]+/g) ?? [];

/**
 * Word diff of `before` -> `after`, in change blocks a reader can follow: whitespace kept in
 * common between two changes is folded into them, and each block reads deletions then insertions.
 */
export function wordDiff(before: string, after: string): DiffPart[] {
  for (const tokenize of [words, lines]) {
    const parts = diffTokens(tokenize(before), tokenize(after));
    if (parts) return groupChanges(foldWhitespaceMatches(mergeParts(parts)));
  }
  return mergeParts([
    { op: 'delete', text: before },
    { op: 'insert', text: after },
  ]);
}

/** Token-level LCS diff; undefined when the table would exceed MAX_TABLE_CELLS. */
export function diffTokens(a: readonly string[], b: readonly string[]): DiffPart[] | undefined {
  // A common prefix and suffix cost nothing to match and shrink the table (a rewrite usually
  // keeps the seed's opening sentence).
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const midA = a.slice(prefix, a.length - suffix);
  const midB = b.slice(prefix, b.length - suffix);
  const n = midA.length;
  const m = midB.length;
  if ((n + 1) * (m + 1) > MAX_TABLE_CELLS) return undefined;

  // lcs[i * (m + 1) + j] = LCS length of midA[i..] and midB[j..].
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        midA[i] === midB[j] ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const parts: DiffPart[] = a.slice(0, prefix).map((text) => ({ op: 'same', text }));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && midA[i] === midB[j]) {
      parts.push({ op: 'same', text: midA[i++] as string });
      j++;
    } else if (j < m && (i === n || (lcs[i * width + j + 1] ?? 0) >= (lcs[(i + 1) * width + j] ?? 0))) {
      parts.push({ op: 'insert', text: midB[j++] as string });
    } else {
      parts.push({ op: 'delete', text: midA[i++] as string });
    }
  }
  for (const text of a.slice(a.length - suffix)) parts.push({ op: 'same', text });
  return parts;
}

function mergeParts(parts: readonly DiffPart[]): DiffPart[] {
  const merged: DiffPart[] = [];
  for (const part of parts) {
    if (part.text === '') continue;
    const last = merged.at(-1);
    if (last && last.op === part.op) last.text += part.text;
    else merged.push({ ...part });
  }
  return merged;
}

/** A whitespace-only match between two changes is noise ("rounded~~Answer~~ to"): make it part of both. */
function foldWhitespaceMatches(parts: readonly DiffPart[]): DiffPart[] {
  return parts.flatMap((part, i) => {
    const between = i > 0 && i < parts.length - 1 && parts[i - 1]?.op !== 'same' && parts[i + 1]?.op !== 'same';
    if (part.op === 'same' && between && part.text.trim() === '') {
      return [
        { op: 'delete' as const, text: part.text },
        { op: 'insert' as const, text: part.text },
      ];
    }
    return [part];
  });
}

/** Each run of changes between matches becomes one deletion followed by one insertion. */
function groupChanges(parts: readonly DiffPart[]): DiffPart[] {
  const grouped: DiffPart[] = [];
  let deleted = '';
  let inserted = '';
  const flush = () => {
    if (deleted) grouped.push({ op: 'delete', text: deleted });
    if (inserted) grouped.push({ op: 'insert', text: inserted });
    deleted = '';
    inserted = '';
  };
  for (const part of parts) {
    if (part.op === 'delete') deleted += part.text;
    else if (part.op === 'insert') inserted += part.text;
    else {
      flush();
      grouped.push({ ...part });
    }
  }
  flush();
  return mergeParts(grouped);
}
