// Content hashes: the hex SHA-256 of a text, or of a value's canonical JSON (equal data gives an
// equal hash whatever its key order). Every identity and cache key of the project is one of
// these: candidates, cached LM requests, logged prompts and proposals, dataset fingerprints.
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonicalJson.js';

/** Hex SHA-256 of `text` (64 characters); callers that shorten it say why. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Hex SHA-256 of `value`'s canonical JSON; throws as canonicalJson does (cycles, BigInts). */
export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
