// An optional on-disk cache of language-model replies, so that re-running the same
// configuration costs nothing. One JSON file per request, named by the SHA-256 of the request
// (model, messages, sampling parameters), written atomically (temp file + rename) so a crash
// or a concurrent writer never leaves a half-written entry. Any unreadable entry is a miss.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { contentHash } from '../identity/contentHash.js';
import type { TokenUsage } from './priceTable.js';

/** A reply as the cache keeps it. */
export interface CachedReply {
  /** The reply's text. */
  text: string;
  /** What the server reported when the reply was first paid for. */
  usage?: TokenUsage;
}

/** What a response cache did so far. */
export interface ResponseCacheStats {
  /** Requests answered from the cache. */
  hits: number;
  /** Requests not found (then sent to the server). */
  misses: number;
  /** Replies stored. */
  writes: number;
  /** Replies that could not be stored (the run went on). */
  writeErrors: number;
}

/** Model replies kept on disk, one JSON file per request (createResponseCache); a model's `cache` option. */
export interface ResponseCache {
  /** The reply stored for this request key, if any. */
  get(key: string): Promise<CachedReply | undefined>;
  /** Never throws: losing a cache entry must not lose a reply that was already paid for. */
  set(key: string, reply: CachedReply, request?: unknown): Promise<void>;
  /** Its counts so far. */
  stats(): ResponseCacheStats;
}

const entrySchema = z.object({
  version: z.literal(1),
  key: z.string(),
  reply: z.object({
    text: z.string(),
    usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }).optional(),
  }),
});

/** Hex SHA-256 of the canonical request; also seeds the deterministic retry jitter. */
export function requestKey(request: unknown): string {
  return contentHash(request);
}

let tempCounter = 0;

/**
 * A cache in `dir` (created on first write), sharded by the key's first two hex digits.
 * The request itself is stored beside the reply so an entry can be inspected by hand.
 */
export function createResponseCache(dir: string): ResponseCache {
  const stats: ResponseCacheStats = { hits: 0, misses: 0, writes: 0, writeErrors: 0 };
  const pathOf = (key: string) => join(dir, key.slice(0, 2), `${key}.json`);

  return {
    async get(key) {
      try {
        const entry = entrySchema.parse(JSON.parse(await readFile(pathOf(key), 'utf8')));
        if (entry.key !== key) throw new Error('key mismatch');
        stats.hits++;
        return entry.reply;
      } catch {
        stats.misses++;
        return undefined;
      }
    },
    async set(key, reply, request) {
      const target = pathOf(key);
      const temp = `${target}.${process.pid}.${tempCounter++}.tmp`;
      try {
        await mkdir(join(dir, key.slice(0, 2)), { recursive: true });
        const entry = { version: 1, key, reply, request };
        await writeFile(temp, JSON.stringify(entry, null, 2) + '\n', 'utf8');
        await rename(temp, target);
        stats.writes++;
      } catch {
        stats.writeErrors++;
        await rm(temp, { force: true }).catch(() => {});
      }
    },
    stats: () => ({ ...stats }),
  };
}
