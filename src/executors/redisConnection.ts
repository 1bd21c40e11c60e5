// Where Redis is and how BullMQ talks to it: parses the user's `connection` (a redis:// or TLS
// rediss:// URL, with user and password, or { host, port }) into ioredis options, which BullMQ
// hands to ioredis, its Redis driver, and waits for a Redis that is not up yet. ioredis is an
// optional peer, imported on first use; the options are our own type, so no declaration of ours
// names a package the user may not have.
import { ConfigError } from '../errors/configError.js';
import { sleep, systemClock } from '../clock.js';
import { maskUrlCredentials } from '../lm/secretRedactor.js';
import { BULLMQ_EXECUTOR, importIntegration } from '../peers/optionalDependency.js';

/** Where Redis is: a `redis://` / `rediss://` URL (user and password percent-encoded) or host and port. */
export type RedisConnectionSpec =
  | string
  | {
      /** Redis host. */
      host: string;
      /** Redis port. */
      port: number;
    };

/** The part of ioredis's RedisOptions we set (BullMQ passes them on to ioredis). */
export interface RedisOptions {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db?: number;
  /** rediss://: TLS, the certificate checked against this name. */
  tls?: { servername: string };
  maxRetriesPerRequest?: number | null;
  retryStrategy?: (attempt: number) => number | null;
}

const DEFAULT_PORT = 6379;

/**
 * `redis://[user:password@]host[:port][/db]` (`rediss://` for TLS) or { host, port } -> socket
 * options; ConfigError when malformed, which never prints the password.
 */
export function parseRedisConnection(spec: RedisConnectionSpec, field = 'connection'): RedisOptions {
  if (typeof spec === 'object' && spec !== null) {
    if (typeof spec.host !== 'string' || spec.host === '' || !Number.isInteger(spec.port) || spec.port <= 0) {
      throw new ConfigError(`${field}: expected { host: string, port: number }, got ${JSON.stringify(spec)}`);
    }
    return { host: spec.host, port: spec.port };
  }
  let url: URL;
  const shown = maskUrlCredentials(String(spec));
  try {
    url = new URL(String(spec));
  } catch {
    throw new ConfigError(`${field}: "${shown}" is not a URL; expected redis://host:port`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new ConfigError(`${field}: expected a redis:// or rediss:// URL, got "${shown}"`);
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) throw new ConfigError(`${field}: "${url.pathname.slice(1)}" is not a database number`);
  // URL keeps the brackets of an IPv6 host; sockets want the bare address.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  return {
    host,
    port: url.port ? Number(url.port) : DEFAULT_PORT,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(db !== 0 ? { db } : {}),
    // TLS, checked against the host's name (ioredis's own reading of rediss://).
    ...(url.protocol === 'rediss:' ? { tls: { servername: host } } : {}),
  };
}

/** Reconnecting to a lost Redis: the n-th try after n x this, at most RECONNECT_MAX_MS after the last. */
export const RECONNECT_STEP_MS = 50;
export const RECONNECT_MAX_MS = 250;

/**
 * The options handed to BullMQ. Workers block on Redis, so ioredis must not give up on a command
 * while it reconnects (maxRetriesPerRequest: null); reconnects are retried every 250 ms at most
 * (a refused connection costs next to nothing), so a restarted Redis is back in use at once.
 */
export function bullmqConnection(spec: RedisConnectionSpec, field?: string): RedisOptions {
  return {
    ...parseRedisConnection(spec, field),
    maxRetriesPerRequest: null,
    retryStrategy: (attempt: number) => Math.min(RECONNECT_STEP_MS * attempt, RECONNECT_MAX_MS),
  };
}

/**
 * Resolves once Redis answers a PING, retrying with backoff (250 ms doubling to 4 s) and
 * reporting each failure. Rejects when the signal aborts, or when Redis answers with an error
 * (a wrong password will not fix itself). BullMQ clients opened after this reconnect by
 * themselves, but one whose first connection fails stays failed.
 */
export async function waitUntilReachable(options: RedisOptions, signal: AbortSignal, onError: (error: Error) => void): Promise<void> {
  const { Redis, ReplyError } = await importIntegration(BULLMQ_EXECUTOR, () => import('ioredis'));
  for (let waitMs = 250; ; waitMs = Math.min(2 * waitMs, 4000)) {
    // One attempt per probe: the loop, not ioredis, does the waiting.
    const client = new Redis({ ...options, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    // ioredis reports the socket's own error (e.g. ECONNREFUSED) as an event, then rejects
    // connect() with a generic "Connection is closed": keep the informative one.
    let socketError: Error | undefined;
    client.on('error', (error: Error) => {
      socketError ??= error;
    });
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (error) {
      const failure = socketError ?? (error instanceof Error ? error : new Error(String(error)));
      onError(failure);
      if (failure instanceof ReplyError) throw failure;
    } finally {
      client.disconnect();
    }
    await sleep(systemClock, waitMs, signal);
  }
}
