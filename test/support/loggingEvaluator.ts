// An optimizeAnything evaluator module for the run-config tests: it imports log() from the
// package, as a user's module does, and logs which words the artifact still misses.
import { log } from '../../src/index.js';

const NEEDED = ['alpha', 'bravo'];

export async function evaluate(candidate: string): Promise<number> {
  const missing = NEEDED.filter((w) => !candidate.includes(w));
  log(`logged: still missing ${missing.join(' and ') || 'nothing'}`);
  return (NEEDED.length - missing.length) / NEEDED.length;
}
