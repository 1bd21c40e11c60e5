// How a run's outcome reads in a sentence, shared by the CLI summary and report.html: the stop
// reason as a phrase, counts with the right plural, and signed percentages.
/** The stop reason as a phrase ("stopped: stopped" read as a stutter), naming the user's stopper when one stopped the run (its reason may be a budget's). */
export function stopText(stopReason: string, stoppedBy?: string): string {
  if (stopReason === 'stopped') return 'stopped on request';
  if (stopReason === 'aborted') return 'aborted on request';
  if (stopReason === 'error') return 'stopped by an error';
  return `stopped by ${stopReason}${stoppedBy !== undefined && stoppedBy !== stopReason ? ` (the stopper ${stoppedBy})` : ''}`;
}

/** "1 candidate", "2 candidates". */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A relative error as a whole signed percentage: "+7%", "-3%", and "+0%" for anything that rounds to 0 (never a bare "0%" or "-0%"). */
export function signedPercent(x: number): string {
  const pct = Math.round(x * 100) || 0;
  return `${pct >= 0 ? '+' : ''}${pct}%`;
}

/** maxCandidateLength's counts as a phrase: "3 texts over maxCandidateLength sent back, 1 proposal refused (never evaluated)". */
export function tooLongText(tooLong: { textsSentBack: number; proposalsRefused: number }): string {
  return `${plural(tooLong.textsSentBack, 'text')} over maxCandidateLength sent back, ${plural(tooLong.proposalsRefused, 'proposal')} refused (never evaluated)`;
}
