// How a run's outcome reads in a sentence, shared by the CLI summary and report.html: the stop
// reason as a phrase and counts with the right plural.
/** The stop reason as a phrase: "stopped: stopped" read as a stutter. */
export function stopText(stopReason: string): string {
  if (stopReason === 'stopped') return 'stopped on request';
  if (stopReason === 'aborted') return 'aborted on request';
  if (stopReason === 'error') return 'stopped by an error';
  return `stopped by ${stopReason}`;
}

/** "1 candidate", "2 candidates". */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
