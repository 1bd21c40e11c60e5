// A three-way merge of prompt texts, as version control merges concurrent changes: given the
// base text and two texts that each changed it, keep every change either side made. Texts are
// compared as sentences and line breaks (a prompt's units of meaning), not characters. Each side's
// change is a set of base units it removed and of units it inserted between base units. Removals
// of either side apply; insertions at one place from both sides are both kept, ours first (two
// rules added after the same sentence do not conflict). Only when both sides replaced the same
// sentence with different text is there a conflict, which is reported rather than guessed.
// Units are compared without their trailing whitespace: a language model that rewrites a prompt
// often changes the space or line break after a sentence, and that is not a change of meaning.

/** Splits a text into sentence and line-break units that concatenate back to it exactly. */
export function textUnits(text: string): string[] {
  return text.match(/[^\n.!?]+(?:[.!?]+(?=\s|$)|$)[^\S\n]*|[.!?]+[^\S\n]*|\n+/g) ?? [];
}

/** What two units must share to count as the same: the text without its trailing whitespace. */
const unitKey = (unit: string): string => unit.trimEnd();

/** Index pairs (i in a, j in b) of a longest common subsequence of units, in order. */
function commonUnits(units: readonly string[], sideUnits: readonly string[]): Array<[number, number]> {
  const a = units.map(unitKey);
  const b = sideUnits.map(unitKey);
  const n = a.length;
  const m = b.length;
  // The walk below pairs equal units at once, so a common prefix pairs unit by unit whatever
  // follows it: the table is only needed after it. (Prompts grow by edits to their end, so the
  // prefix is most of a text; the table was quadratic in the whole of it. A common suffix cannot
  // be cut the same way: the walk may pair a suffix unit with an earlier equal one.)
  let start = 0;
  while (start < n && start < m && a[start] === b[start]) start++;
  // lengths[i - start][j - start] = LCS length of a[i..] and b[j..]
  const rows = n - start;
  const columns = m - start;
  const lengths = Array.from({ length: rows + 1 }, () => new Int32Array(columns + 1));
  for (let i = rows - 1; i >= 0; i--) {
    const row = lengths[i] as Int32Array;
    const below = lengths[i + 1] as Int32Array;
    for (let j = columns - 1; j >= 0; j--) row[j] = a[start + i] === b[start + j] ? (below[j + 1] as number) + 1 : Math.max(below[j] as number, row[j + 1] as number);
  }
  const pairs: Array<[number, number]> = [];
  for (let k = 0; k < start; k++) pairs.push([k, k]);
  let i = 0;
  let j = 0;
  while (i < rows && j < columns) {
    if (a[start + i] === b[start + j]) {
      pairs.push([start + i, start + j]);
      i++;
      j++;
    } else if (((lengths[i + 1] as Int32Array)[j] as number) >= ((lengths[i] as Int32Array)[j + 1] as number)) i++;
    else j++;
  }
  return pairs;
}

/**
 * One side's change to the base: for each base unit, the side's text of it when kept (else
 * undefined), and what the side inserted before each base unit (gap n: at the end).
 */
interface SideChange {
  kept: Array<string | undefined>;
  inserted: string[];
}

function changeOf(base: readonly string[], side: readonly string[]): SideChange {
  const kept = new Array<string | undefined>(base.length).fill(undefined);
  const inserted = new Array<string>(base.length + 1).fill('');
  const pairs = commonUnits(base, side);
  let bi = 0;
  let si = 0;
  // The pairs, then the ends of both texts as a last pair.
  for (let k = 0; k <= pairs.length; k++) {
    const [b, s] = k < pairs.length ? (pairs[k] as [number, number]) : [base.length, side.length];
    // Base units bi..b-1 were removed and side units si..s-1 put in their place, at gap bi.
    if (s > si) inserted[bi] += side.slice(si, s).join('');
    if (b < base.length) kept[b] = side[s];
    bi = b + 1;
    si = s + 1;
  }
  return { kept, inserted };
}

export type TextMerge = { ok: true; text: string } | { ok: false; conflict: { base: string; ours: string; theirs: string } };

/**
 * Merges the change base -> theirs into ours (base -> ours). A unit removed by either side is
 * removed; what each side inserted is kept, once if both inserted the same, ours first otherwise.
 */
export function mergeTexts(base: string, ours: string, theirs: string): TextMerge {
  if (ours === theirs || theirs === base) return { ok: true, text: ours };
  if (ours === base) return { ok: true, text: theirs };
  const b = textUnits(base);
  const o = changeOf(b, textUnits(ours));
  const t = changeOf(b, textUnits(theirs));
  const text = new MergedText();
  for (let g = 0; g <= b.length; g++) {
    const [mine, yours] = [o.inserted[g] as string, t.inserted[g] as string];
    // Both sides replaced the unit after this gap, each with its own text: a real conflict.
    const bothReplaced = g < b.length && o.kept[g] === undefined && t.kept[g] === undefined && mine !== '' && yours !== '' && unitKey(mine) !== unitKey(yours);
    if (bothReplaced) return { ok: false, conflict: { base: b[g] as string, ours: mine, theirs: yours } };
    text.append(unitKey(mine) === unitKey(yours) ? mine : joinInsertions(mine, yours));
    // A unit both kept, in our spelling of its whitespace.
    const kept = o.kept[g];
    if (kept !== undefined && t.kept[g] !== undefined) text.append(kept);
  }
  return { ok: true, text: text.joined() };
}

/** Whether a text ends (starts) with whitespace: its last (first) character alone, not a regex over the whole text, which grows with the merge. */
const endsWithSpace = (text: string): boolean => text !== '' && /\s/.test(text[text.length - 1] as string);
const startsWithSpace = (text: string): boolean => text !== '' && /\s/.test(text[0] as string);

/**
 * The merged text as it is built: each piece after the text so far, with a space between when a
 * sentence would otherwise run into the next. The pieces are joined once at the end, and only the
 * last character is kept to decide the space (reading a character of a string built with `+`
 * flattens it: with a piece per unit that copied the whole text again at every unit).
 */
class MergedText {
  private readonly pieces: string[] = [];
  /** The text's last character ('' while it is empty). */
  private last = '';

  append(piece: string): void {
    if (piece === '') return;
    if (this.last !== '' && !endsWithSpace(this.last) && !startsWithSpace(piece)) this.pieces.push(' ');
    this.pieces.push(piece);
    this.last = piece[piece.length - 1] as string;
  }

  joined(): string {
    return this.pieces.join('');
  }
}

/** Two insertions at one place, ours first, each keeping the line break or space it came with. */
function joinInsertions(ours: string, theirs: string): string {
  if (ours === '' || theirs === '') return ours + theirs;
  if (ours.endsWith('\n') || theirs.startsWith('\n') || endsWithSpace(ours) || startsWithSpace(theirs)) return ours + theirs;
  return `${ours}${/\n/.test(ours + theirs) ? '\n' : ' '}${theirs}`;
}
