// The text of anything thrown: an Error's message, else the value as a string. Errors cross
// module and process boundaries as text (replies, log lines, feedback), so one rule for all.
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
