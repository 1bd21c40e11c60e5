// Calls held back for a resumed run: an earlier process paid for logged work that this process
// has not replayed yet, and the budget keeps room for it. The journal (src/storage/) knows how
// much; this asks it the way the budget needs (by shape: budget/ imports no other room).

/** What this asks of the run's journal (src/gepa/core/workJournal.ts's WorkJournal has both). */
export interface HeldWorkSource {
  expectedDecision?(): unknown;
  heldWork?(): { calls: number; usd: number };
}

/**
 * Logged calls of earlier processes that the resumed run has not replayed (they were paid): held
 * once an async run is past its logged path, and from the start in a run whose budget was raised
 * (the journal decides; a batched run otherwise replays all of them).
 */
export function heldCalls(journal: HeldWorkSource | undefined, async: boolean): number {
  if (!journal) return 0;
  // Asking an async journal what comes next marks it past its logged path once every logged decision is taken.
  if (async) journal.expectedDecision?.();
  return journal.heldWork?.().calls ?? 0;
}
