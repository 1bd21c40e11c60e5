// The fast project runs alone without the programs the integration tests need: a test file that
// starts a process, Redis, Chromium, the real model or the Python reference must be listed in
// vitest.config.ts's integration project, or `npm run test:fast` would start it after all.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.js';

/**
 * What in a test file's text means it reaches outside the process. The Python reference is reached
 * through its bridges (bench/reference/), not by the word: a test may name python3 in a comment.
 */
const OUTSIDE = [/node:child_process/, /support\/testRedis/, /support\/localGguf/, /chromium/i, /bench\/reference\//];

const projects = (config.test?.projects ?? []) as Array<{ test: { name: string; include: string[]; exclude?: string[] } }>;
const integration = projects.find((p) => p.test.name === 'integration')?.test.include ?? [];

describe('the test projects', () => {
  it('splits the suite in two, every file in exactly one', () => {
    const fast = projects.find((p) => p.test.name === 'fast')?.test;
    expect(fast?.exclude).toEqual(integration);
    const files = readdirSync('test').filter((f) => f.endsWith('.test.ts'));
    for (const f of integration) expect(files).toContain(f.replace('test/', ''));
  });

  it('puts every test that reaches outside the process in the integration project', () => {
    const outside = readdirSync('test')
      .filter((f) => f.endsWith('.test.ts') && f !== 'testProjects.test.ts')
      .filter((f) => OUTSIDE.some((pattern) => pattern.test(readFileSync(`test/${f}`, 'utf8'))));
    expect(outside.length).toBeGreaterThan(10);
    expect(outside.map((f) => `test/${f}`).filter((f) => !integration.includes(f))).toEqual([]);
  });
});
