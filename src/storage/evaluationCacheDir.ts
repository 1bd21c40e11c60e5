// The 'disk' evaluation cache (cacheEvaluation 'disk', cacheDir): one append-only JSONL file of
// kept evaluations, keyed by the SHA-256 of (adapter identity, candidate hash, example content,
// traces?) and an occurrence number. Each record is one O_APPEND write of a whole line, so runs
// sharing the folder append without mixing lines, and a crash leaves at most one torn line, which
// reading skips (a cache line lost is a call paid again, never a wrong answer).
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentHash } from '../identity/contentHash.js';
import type { EvaluationStore } from '../evaluation/evaluationStore.js';
import type { Evaluation } from '../gepa/core/adapter.js';

/** The file inside cacheDir. */
export const EVALUATION_CACHE_FILE = 'evaluations.jsonl';

interface KeptLine {
  key: string;
  occurrence: number;
  evaluation: Evaluation;
}

function isKeptLine(value: unknown): value is KeptLine {
  const line = value as Partial<KeptLine> | null;
  return (
    typeof line?.key === 'string' &&
    Number.isInteger(line.occurrence) &&
    typeof line.evaluation === 'object' &&
    line.evaluation !== null &&
    typeof line.evaluation.score === 'number'
  );
}

/**
 * Every whole, valid line of the file, the first for each (key, occurrence); torn or foreign
 * lines are skipped. `torn`: the file ends inside a line (a writer died mid-write).
 */
function readKept(path: string): { kept: Map<string, Evaluation>; torn: boolean } {
  const kept = new Map<string, Evaluation>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { kept, torn: false };
  }
  for (const line of text.split('\n')) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isKeptLine(value)) continue;
    const slot = `${value.key}#${value.occurrence}`;
    if (!kept.has(slot)) kept.set(slot, value.evaluation);
  }
  return { kept, torn: text.length > 0 && !text.endsWith('\n') };
}

/**
 * The store of `dir` for runs of this adapter identity (runIdentity without reflectionLm) on these
 * examples (by table id). Nothing is read or written until the first call: the folder is created
 * and read then.
 */
export function evaluationCacheDir(dir: string, adapterIdentity: Record<string, unknown>, examples: readonly unknown[]): EvaluationStore {
  const path = join(dir, EVALUATION_CACHE_FILE);
  const identity = contentHash(adapterIdentity);
  const exampleHashes = new Map<number, string | null>();
  let kept: Map<string, Evaluation> | undefined;

  const loaded = (): Map<string, Evaluation> => {
    if (!kept) {
      mkdirSync(dir, { recursive: true });
      const read = readKept(path);
      // End the torn line, so that this run's first record starts a line of its own.
      if (read.torn) appendFileSync(path, '\n');
      kept = read.kept;
    }
    return kept;
  };
  /** An example that is not JSON (cycles, BigInts) has no content hash: its calls are never kept. */
  const exampleHash = (id: number): string | null => {
    let hash = exampleHashes.get(id);
    if (hash === undefined) {
      try {
        hash = contentHash(examples[id] ?? null);
      } catch {
        hash = null;
      }
      exampleHashes.set(id, hash);
    }
    return hash;
  };
  const keyOf = (candidateHash: string, exampleId: number, captureTraces: boolean): string | null => {
    const example = exampleHash(exampleId);
    return example === null ? null : contentHash({ identity, candidate: candidateHash, example, traces: captureTraces });
  };

  return {
    find(candidateHash, exampleId, captureTraces, occurrence) {
      const key = keyOf(candidateHash, exampleId, captureTraces);
      if (key === null) return undefined;
      const evaluation = loaded().get(`${key}#${occurrence}`);
      return evaluation ? { ...evaluation } : undefined;
    },
    keep(candidateHash, exampleId, captureTraces, occurrence, evaluation) {
      const key = keyOf(candidateHash, exampleId, captureTraces);
      if (key === null) return;
      loaded();
      // Its dollars were this run's: a later run that is served it pays nothing.
      const { costUsd: _cost, ...kept } = evaluation;
      let line: string;
      try {
        line = JSON.stringify({ key, occurrence, evaluation: kept } satisfies KeptLine);
      } catch {
        // An output or trace that is not JSON: not kept, so a later run makes the call.
        return;
      }
      appendFileSync(path, `${line}\n`);
    },
  };
}
