// Candidate identity: a stable content hash of a component map, independent of key order and
// of when or where the candidate was made. Cache keys and deduplication use it.
import { canonicalJson } from '../../identity/canonicalJson.js';
import { sha256Hex } from '../../identity/contentHash.js';
import type { Candidate } from './adapter.js';

/** The candidate as [name, text] pairs in name order: key order does not change its identity. */
export function canonicalCandidateJson(candidate: Candidate): string {
  return canonicalJson(Object.keys(candidate).sort().map((k) => [k, candidate[k]]));
}

/** Hex SHA-256 of the canonical form, truncated to 16 bytes: collisions are not a concern. */
export function candidateHash(candidate: Candidate): string {
  return sha256Hex(canonicalCandidateJson(candidate)).slice(0, 32);
}

export function sameCandidate(a: Candidate, b: Candidate): boolean {
  return canonicalCandidateJson(a) === canonicalCandidateJson(b);
}
