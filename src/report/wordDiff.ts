// How one text differs from another, word by word (whitespace kept as tokens so the text reads as
// written), for the report and the workbench: jsdiff's Myers diff (its cost grows with the edit,
// not the length, so a small edit of a long prompt is cheap), bounded by an edit count; past it, a
// line diff, and past that "all deleted, all inserted". The parts are then grouped into change
// blocks a reader can follow.
import { Diff, diffLines, type ChangeObject } from 'diff';

export interface DiffPart {
  op: 'same' | 'insert' | 'delete';
  text: string;
}

/**
 * Above this many inserted plus deleted tokens a word diff stops reading as one, and jsdiff's cost
 * grows about with its square (500: under 0.1 s to give up on two unrelated 2,000-word texts):
 * lines are tried instead. Deterministic, unlike jsdiff's wall-clock timeout.
 */
export const MAX_EDITS = 500;

/** Words (runs of non-space, punctuation kept on its word: "question." is one token) and runs of whitespace, or whole lines. */
export type DiffGranularity = 'words' | 'lines';

/**
 * jsdiff's engine on our tokens: its own word diffs split punctuation off ("question" "."), which
 * strands a lone matched "." between a deletion and an insertion.
 */
class WordsAndSpaces extends Diff<string, string> {
  override tokenize(value: string): string[] {
    return value.match(/\s+|[^\s]+/g) ?? [];
  }
  override join(tokens: string[]): string {
    return tokens.join('');
  }
}
const wordsAndSpaces = new WordsAndSpaces();

/** The raw diff at `granularity`; undefined when it would take more than MAX_EDITS edits. */
export function tokenDiff(before: string, after: string, granularity: DiffGranularity): DiffPart[] | undefined {
  const options = { maxEditLength: MAX_EDITS };
  const changes: ChangeObject<string>[] | undefined = granularity === 'words' ? wordsAndSpaces.diff(before, after, options) : diffLines(before, after, options);
  return changes?.map((c) => ({ op: c.added ? 'insert' : c.removed ? 'delete' : 'same', text: c.value }));
}

/**
 * Word diff of `before` -> `after`, in change blocks a reader can follow: whitespace kept in
 * common between two changes is folded into them, and each block reads deletions then insertions.
 */
export function wordDiff(before: string, after: string): DiffPart[] {
  for (const granularity of ['words', 'lines'] as const) {
    const parts = tokenDiff(before, after, granularity);
    if (parts) return groupChanges(foldWhitespaceMatches(mergeParts(parts)));
  }
  return mergeParts([
    { op: 'delete', text: before },
    { op: 'insert', text: after },
  ]);
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
