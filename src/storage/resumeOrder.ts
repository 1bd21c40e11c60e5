// Resuming an async run in its logged order. An async run's decisions (verdicts, folds) depend on
// the order in which results arrive, so the journal logs them, and a resumed run takes them in
// the logged order: that way it asks for exactly the calls the log holds and pays for none twice.
// The optimizer asks these two questions; the journal (runJournal.ts) holds the answers.
import type { WorkJournal } from '../types.js';

/** What the questions need of the run: its journal, its schedule, the proposals in flight. */
export interface ResumeOrderView {
  journal: WorkJournal | undefined;
  async: boolean;
  inFlight: Readonly<Record<string, unknown>>;
}

/**
 * A report from a proposer whose turn on the logged path has not come (another proposal in
 * flight comes first) waits. A report from the proposal whose turn it is, or when that proposal
 * is not in flight (the run left the path), is taken at once.
 */
export function outOfTurn(view: ResumeOrderView, reportId: string): boolean {
  if (!view.async) return false;
  const expected = view.journal?.expectedDecision?.();
  return expected !== undefined && expected.id !== reportId && view.inFlight[expected.id] !== undefined;
}

/** Tells the journal a decision was taken (it follows the logged path, or logs a new one). */
export function recordDecision(view: ResumeOrderView, kind: 'judged' | 'finished', id: string): void {
  if (view.async) view.journal?.recordDecision?.({ kind, id });
}
