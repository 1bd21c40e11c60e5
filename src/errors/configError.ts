// The error of a config that cannot run: every message names the field at fault. Raised before
// anything is written or paid for; the CLI turns it into exit code 2. At the top of src/, not in
// config/: validation raises it, and so do rooms validation never reaches (a malformed Redis URL
// in executors/, a changed config found in storage/, the worker's options, a report's input).
// Room errors/ (below every room): any room may import it; it imports none.
import type { z } from 'zod';

/** A config that cannot run, thrown before anything is written or paid for; the message names the field at fault. */
export class ConfigError extends Error {
  /** 'ConfigError'. */
  override name = 'ConfigError';
}

/** A zod error as "field.path: message; ..." (the config itself when the path is empty). */
export function formatZodError(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'config'}: ${i.message}`).join('; ');
}
