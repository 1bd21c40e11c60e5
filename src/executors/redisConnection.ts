// Where Redis is and how BullMQ talks to it: parses the user's `connection` (a redis:// URL or
// { host, port }), registers our RESP client as BullMQ's Redis driver (so no ioredis is needed;
// an application that registered its own driver through RedisConnection.clientFactory keeps
// it), and waits for a Redis that is not up yet.
import { createBunRedisClient, RedisConnection, type RedisOptions } from 'bullmq';
import { ConfigError } from '../runSettings.js';
import { sleep, systemClock } from '../clock.js';
import { RedisReplyError, RespClient, type RespClientOptions } from './respClient.js';

export type RedisConnectionSpec = string | { host: string; port: number };

const DEFAULT_PORT = 6379;

/** `redis://[user:password@]host[:port][/db]` or { host, port } -> socket options; ConfigError when malformed. */
export function parseRedisConnection(spec: RedisConnectionSpec, field = 'connection'): RespClientOptions {
  if (typeof spec === 'object' && spec !== null) {
    if (typeof spec.host !== 'string' || spec.host === '' || !Number.isInteger(spec.port) || spec.port <= 0) {
      throw new ConfigError(`${field}: expected { host: string, port: number }, got ${JSON.stringify(spec)}`);
    }
    return { host: spec.host, port: spec.port };
  }
  let url: URL;
  try {
    url = new URL(String(spec));
  } catch {
    throw new ConfigError(`${field}: "${String(spec)}" is not a URL; expected redis://host:port`);
  }
  if (url.protocol !== 'redis:') throw new ConfigError(`${field}: expected a redis:// URL, got "${String(spec)}"`);
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) throw new ConfigError(`${field}: "${url.pathname.slice(1)}" is not a database number`);
  return {
    // URL keeps the brackets of an IPv6 host; sockets want the bare address.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: url.port ? Number(url.port) : DEFAULT_PORT,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(db !== 0 ? { db } : {}),
  };
}

/** The options object handed to BullMQ; our driver factory reads them back. */
export function bullmqConnection(spec: RedisConnectionSpec, field?: string): RedisOptions {
  const options = parseRedisConnection(spec, field);
  useBuiltInRedisDriver();
  return { ...options };
}

function respOptionsOf(options: RedisOptions): RespClientOptions {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? DEFAULT_PORT,
    ...(options.username ? { username: options.username } : {}),
    ...(options.password ? { password: options.password } : {}),
    ...(options.db ? { db: options.db } : {}),
  };
}

export function useBuiltInRedisDriver(): void {
  RedisConnection.clientFactory ??= (options) => {
    const client = createBunRedisClient(new RespClient(respOptionsOf(options)));
    // The adapter's reconnect backoff grows to 20 s; retry every second instead, as BullMQ's
    // ioredis default does, so a restarted Redis is back in use at once.
    (client as unknown as { maxReconnectDelay?: number }).maxReconnectDelay = 1000;
    return client;
  };
}

/**
 * Resolves once Redis answers a PING, retrying with backoff (250 ms doubling to 4 s) and
 * reporting each failure. Rejects when the signal aborts, or when Redis answers with an error
 * (a wrong password will not fix itself). BullMQ clients opened after this reconnect by
 * themselves, but one whose first connection fails stays failed.
 */
export async function waitUntilReachable(options: RedisOptions, signal: AbortSignal, onError: (error: Error) => void): Promise<void> {
  for (let waitMs = 250; ; waitMs = Math.min(2 * waitMs, 4000)) {
    const client = new RespClient(respOptionsOf(options));
    try {
      await client.connect();
      await client.send('PING');
      return;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      onError(failure);
      if (failure instanceof RedisReplyError) throw failure;
    } finally {
      client.close();
    }
    await sleep(systemClock, waitMs, signal);
  }
}
