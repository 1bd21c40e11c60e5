// --seed-candidate FILE (run and demo): a JSON object of named texts to start from instead of the
// config's or the demo's seed. A branch made in the workbench writes one (its origin's candidate).
import { readFile } from 'node:fs/promises';
import type { Candidate } from '../gepa/core/adapter.js';
import { errorMessage } from '../errors/errorMessage.js';
import { UsageError } from './exitCodes.js';

/** The file's named texts; a UsageError (exit 2) says what is wrong with it. */
export async function readSeedTexts(path: string): Promise<Candidate> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--seed-candidate ${path}: ${errorMessage(error)}`);
  }
  const texts = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0 && Object.values(value).every((v) => typeof v === 'string');
  if (!texts) throw new UsageError(`--seed-candidate ${path}: expected a JSON object of named texts, e.g. {"system_prompt": "..."}`);
  return value as Candidate;
}

/** The file's named texts, which must be exactly `components` (the demo's). */
export async function readSeedCandidate(path: string, components: readonly string[]): Promise<Candidate> {
  const texts = await readSeedTexts(path);
  if (Object.keys(texts).sort().join('\u0000') !== [...components].sort().join('\u0000')) {
    throw new UsageError(`--seed-candidate ${path}: expected the components ${components.map((c) => JSON.stringify(c)).join(', ')}, got ${Object.keys(texts).map((c) => JSON.stringify(c)).join(', ')}`);
  }
  return texts;
}
