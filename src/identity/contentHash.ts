// Content hashes: the hex SHA-256 of a text, or of a value's canonical JSON (equal data gives an
// equal hash whatever its key order). Every identity and cache key of the project is one of
// these: candidates, cached LM requests, logged prompts and proposals, dataset fingerprints.
// Room identity/ (below every room): any room may import it; it imports none.
import * as crypto from 'node:crypto';
import { canonicalJson } from './canonicalJson.js';

/**
 * crypto.hash, a one-shot digest without a Hash object (Node 20.12 and 21.7 on): ~2.5x faster on
 * a candidate's short text (every child is hashed). Earlier Node 20s make a Hash; same digest.
 */
const oneShot: typeof crypto.hash | undefined = typeof crypto.hash === 'function' ? crypto.hash : undefined;

/** Hex SHA-256 of `text` (64 characters); callers that shorten it say why. */
export function sha256Hex(text: string): string {
  return oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');
}

/** Hex SHA-256 of `value`'s canonical JSON; throws as canonicalJson does (cycles, BigInts). */
export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** A dataset's identity on resume: its size, and its content hash when it is plain JSON. */
export interface DatasetFingerprint {
  size: number;
  /** SHA-256 of the dataset's canonical JSON; absent when it is not JSON (then only the size counts). */
  sha256?: string;
}

export function datasetFingerprint(dataset: readonly unknown[]): DatasetFingerprint {
  try {
    return { size: dataset.length, sha256: contentHash(dataset) };
  } catch {
    // Cycles or BigInts: the content cannot be fingerprinted, its size still can.
    return { size: dataset.length };
  }
}

export interface DatasetFingerprints {
  trainset: DatasetFingerprint;
  valset: DatasetFingerprint;
}

export function datasetFingerprints(trainset: readonly unknown[], valset: readonly unknown[] = trainset): DatasetFingerprints {
  return { trainset: datasetFingerprint(trainset), valset: datasetFingerprint(valset) };
}

/**
 * The hashes of a run's inputs that a caller already computed (prepareRun's `hashes`): passed
 * down so that the run does not hash the same seed and datasets again. The CLI needs none: it
 * checks its run directory with the prepared run, which hashed them once.
 */
export interface InputHashes {
  /** candidateHash(seedCandidate). */
  seedCandidate: string;
  /** With a run directory. */
  datasets?: DatasetFingerprints;
}
