// The API key never leaves in a message: a server whose error bodies echo the request headers
// puts nothing of the key on stdout, stderr, any file of the run directory, or any prompt; a
// base URL's credentials are masked when printed; the endpoint check's paid ping is in costUsd.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { checkEndpoint, createOpenAIChatModel } from '../src/lm/openaiLanguageModel.js';
import { costOf, priceFor } from '../src/lm/priceTable.js';
import { createSecretRedactor, maskUrlCredentials } from '../src/lm/secretRedactor.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';
import { ARITHMETIC_RUN_CONFIG, writeArithmeticDataset } from './support/arithmeticRun.js';

const KEY = 'sk-test-7f3a9c1e5b2d4680SECRET';

describe('createSecretRedactor', () => {
  const redact = createSecretRedactor({ apiKey: KEY, baseURL: 'https://alice:pa55w0rd-long@proxy.example/v1' });
  it.each([
    [`key ${KEY} echoed`, 'key [redacted] echoed'],
    ['{"authorization":"Bearer sk-other-token-123"}', '{"authorization":"Bearer [redacted]"}'],
    ['api-key: azure-key-0123456789', 'api-key: [redacted]'],
    ['{"x-api-key":"k-9876543210abc"}', '{"x-api-key":"[redacted]"}'],
    ['{\\"api_key\\":\\"zz-1234567890\\"}', '{\\"api_key\\":\\"[redacted]\\"}'],
    ['failed at https://alice:pa55w0rd-long@proxy.example/v1/chat', 'failed at https://***@proxy.example/v1/chat'],
    ['the password pa55w0rd-long alone', 'the password [redacted] alone'],
    ['nothing secret: HTTP 404 model not found', 'nothing secret: HTTP 404 model not found'],
  ])('%s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });
  it('leaves short placeholder keys alone and masks URL credentials for printing', () => {
    expect(createSecretRedactor({ apiKey: 'x' })('x marks the spot')).toBe('x marks the spot');
    expect(maskUrlCredentials('http://u:p@127.0.0.1:8000/v1')).toBe('http://***@127.0.0.1:8000/v1');
    expect(maskUrlCredentials('http://127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000/v1');
  });
});

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('an endpoint that echoes request headers', () => {
  it('a failed call names the failure without the key', async () => {
    server = await startFakeOpenAIServer();
    server.script({ kind: 'echo-headers', status: 400 }, { kind: 'echo-headers', status: 200 });
    const model = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: KEY, model: 'gpt-4.1-mini' });
    const errors: string[] = [];
    for (let i = 0; i < 2; i++) await model({ system: 's', user: 'u' }).catch((e: Error) => errors.push(e.message));
    expect(server.requests[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/HTTP 400: request headers: .*"authorization":"Bearer \[redacted\]"/);
    expect(errors[1]).toMatch(/malformed reply body, not a chat completion: .*Bearer \[redacted\]/);
    for (const e of errors) expect(e).not.toContain('7f3a9c1e5b2d4680');
  });

  describe('through the CLI', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'gepa-secret-'));
      await writeArithmeticDataset(dir);
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });
    const writeConfig = async (runDir: string, extra: Record<string, unknown> = {}) => {
      const path = join(dir, `${runDir}.json`);
      await writeFile(
        path,
        JSON.stringify({ ...ARITHMETIC_RUN_CONFIG, runDir, ...extra }),
      );
      return path;
    };
    async function filesUnder(root: string): Promise<string[]> {
      const entries = await readdir(root, { withFileTypes: true, recursive: true });
      return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
    }

    it('no trace of the key in stdout, stderr, the run directory or any prompt', async () => {
      // Every third task call is answered with an error echoing the headers, so the echoes reach
      // feedback, the log, the error events and the reflection prompts.
      server = await startFakeOpenAIServer({
        models: ['gpt-4.1-mini', 'gpt-5-mini'],
        stepFor: (messages, n) => (messages.some((m) => m.content.startsWith('You are improving')) || n % 3 !== 0 ? undefined : { kind: 'echo-headers', status: n % 2 === 0 ? 400 : 200 }),
      });
      const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: KEY } });
      expect(await runCli(['run', await writeConfig('echo'), '--json', '--inspect'], io)).toBe(0);
      const echoes = server.requests.filter((r) => r.step === 'echo-headers');
      expect(echoes.length).toBeGreaterThan(2);
      const texts: Array<[string, string]> = [
        ['stdout', io.out()],
        ['stderr', io.err()],
        ...(await Promise.all((await filesUnder(join(dir, 'echo'))).map(async (f): Promise<[string, string]> => [f, await readFile(f, 'utf8')]))),
        ...server.requests.map((r, i): [string, string] => [`request ${i}`, JSON.stringify(r.body ?? {})]),
      ];
      expect(texts.length).toBeGreaterThan(6);
      for (const [where, text] of texts) expect({ where, leaked: text.includes('7f3a9c1e5b2d4680') }).toEqual({ where, leaked: false });
      // The echoes did travel (redacted) into the log and into a reflection prompt.
      const log = await readFile(join(dir, 'echo', 'log.jsonl'), 'utf8');
      expect(log).toContain('Bearer [redacted]');
      expect(server.requests.some((r) => JSON.stringify(r.body ?? {}).includes('Bearer [redacted]'))).toBe(true);
      expect(io.err()).toContain('Bearer [redacted]');
    });

    it('masks credentials in the base URL when it prints it', async () => {
      server = await startFakeOpenAIServer({ models: ['gpt-4.1-mini', 'gpt-5-mini'] });
      const withCredentials = server.baseURL.replace('http://', 'http://bob:hunter2-passphrase@');
      const io = memoryIo({ env: { OPENAI_BASE_URL: withCredentials, OPENAI_API_KEY: KEY } });
      expect(await runCli(['run', await writeConfig('creds'), '--json'], io)).toBe(1);
      expect(io.err()).toContain('http://***@127.0.0.1');
      expect(io.err() + io.out()).not.toContain('hunter2-passphrase');
    });

    it("counts the endpoint check's one-token ping in costUsd", async () => {
      server = await startFakeOpenAIServer({ models: null });
      const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: KEY } });
      expect(await runCli(['run', await writeConfig('ping', { maxCostUsd: 1 }), '--json'], io)).toBe(0);
      const result = JSON.parse(io.out().trim().split('\n').at(-1)!) as OptimizeResult;
      const ping = server.requests.find((r) => r.body?.max_tokens === 1);
      expect(ping?.usage).toBeDefined();
      let serverCost = 0;
      for (const r of server.requests) {
        if (r.usage) serverCost += costOf({ promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens }, priceFor(String(r.body?.model))!);
      }
      expect(result.costUsd).toBeCloseTo(serverCost, 12);
    });
  });

  it('checkEndpoint reports what its ping cost', async () => {
    server = await startFakeOpenAIServer({ models: null });
    const check = await checkEndpoint({ baseURL: server.baseURL, apiKey: KEY, model: 'gpt-4.1-mini' });
    const usage = server.requests[1]!.usage!;
    expect(check.costUsd).toBe(costOf({ promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }, priceFor('gpt-4.1-mini')!));
  });
});
