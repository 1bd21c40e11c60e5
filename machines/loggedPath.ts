// Resuming an async run along its logged path. An async run's decisions (verdicts, folds) depend
// on the order in which results arrive, so the journal logs them, and a resumed run takes them in
// the logged order: that way it asks for exactly the calls the log holds and pays for none twice.
// The optimizer asks these three questions; the journal (src/storage/) holds the answers.
import type { WorkJournal } from '../src/types.js';

/** What the questions need of the optimizer's context. */
export interface LoggedPathView {
  journal: WorkJournal | undefined;
  async: boolean;
  inFlight: Readonly<Record<string, unknown>>;
}

/**
 * Logged calls of earlier processes that the resumed run has not replayed (they were paid): held
 * once an async run is past its logged path, and from the start in a run whose budget was raised
 * (the journal decides; a batched run otherwise replays all of them).
 */
export function heldCalls(view: LoggedPathView): number {
  if (!view.journal) return 0;
  if (view.async) view.journal.expectedDecision?.();
  return view.journal.heldWork?.().calls ?? 0;
}

/**
 * A report from a proposer whose turn on the logged path has not come (another proposal in
 * flight comes first) waits. A report from the proposal whose turn it is, or when that proposal
 * is not in flight (the run left the path), is taken at once.
 */
export function outOfTurn(view: LoggedPathView, reportId: string): boolean {
  if (!view.async) return false;
  const expected = view.journal?.expectedDecision?.();
  return expected !== undefined && expected.id !== reportId && view.inFlight[expected.id] !== undefined;
}

/** Tells the journal a decision was taken (it follows the logged path, or logs a new one). */
export function recordDecision(view: LoggedPathView, kind: 'judged' | 'finished', id: string): void {
  if (view.async) view.journal?.recordDecision?.({ kind, id });
}
