// Calls held back for a resumed run: an earlier process paid for logged work that this process
// has not replayed yet, and the budget keeps room for it. The journal (src/storage/) knows how
// much; this asks it the way the budget needs (by shape: budget/ imports no other room). A read:
// how far the run has walked its logged path is the caller's (storage/resumeOrder.ts's resumeWalk).

/** What this asks of the run's journal (src/gepa/core/workJournal.ts's WorkJournal has it). */
export interface HeldWorkSource {
  heldWork?(walk: { pastLoggedPath: boolean; taken: number }): { calls: number; usd: number };
}

/**
 * Logged calls of earlier processes that the resumed run has not replayed (they were paid): held
 * once an async run is past its logged path, and from the start in a run whose budget was raised
 * (the journal decides; a batched run otherwise replays all of them).
 */
export function heldCalls(journal: HeldWorkSource | undefined, walk: { pastLoggedPath: boolean; taken: number }): number {
  return journal?.heldWork?.(walk).calls ?? 0;
}
