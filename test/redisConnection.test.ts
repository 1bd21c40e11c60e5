// A Redis connection spec as BullMQ gets it: redis:// and rediss:// (TLS) URLs with a user and a
// password (percent-decoded) pass through; a malformed spec is a ConfigError that never prints
// the password.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/index.js';
import { parseRedisConnection } from '../src/executors/redisConnection.js';

describe('parseRedisConnection', () => {
  it.each([
    ['redis://127.0.0.1:6380', { host: '127.0.0.1', port: 6380 }],
    ['redis://:s3cr%40t@cache.internal/2', { host: 'cache.internal', port: 6379, password: 's3cr@t', db: 2 }],
    ['rediss://app:pa%3Ass@redis.example.com:6380', { host: 'redis.example.com', port: 6380, username: 'app', password: 'pa:ss', tls: { servername: 'redis.example.com' } }],
    ['rediss://[::1]:7000', { host: '::1', port: 7000, tls: { servername: '::1' } }],
  ])('%s', (spec, expected) => {
    expect(parseRedisConnection(spec)).toEqual(expected);
  });

  it.each([
    ['http://user:hunter2-long@host:6379', 'connection: expected a redis:// or rediss:// URL, got "http://***@host:6379"'],
    ['redis://:hunter2-long@host/x', 'connection: "x" is not a database number'],
    ['not a url with hunter2', 'connection: "not a url with hunter2" is not a URL'],
  ])('refuses %s', (spec, message) => {
    const error = (() => {
      try {
        parseRedisConnection(spec);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(message);
    if (spec.includes('hunter2-long')) expect((error as Error).message).not.toContain('hunter2-long');
  });
});
