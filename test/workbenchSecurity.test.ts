// The workbench's rules, each over HTTP on loopback: it listens on 127.0.0.1 only and prints one
// URL with a 43-character token; every route needs the token (401 without, 403 wrong, either
// length), and answers nothing of the run when refused; the Host header must name this server
// (a DNS-rebound page says its own); controls need POST, JSON and the token in a header; bad
// requests (unknown run, malformed body, a branch with an invalid setting) get a clear error and
// change nothing; no file outside the run directory, no environment variable, no key is served;
// a non-loopback host is refused without allowRemote (--allow-remote), and warned about with it.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { uiSettings } from '../src/cli/workbenchOptions.js';
import { serveWorkbench, type Workbench } from '../src/workbench/serveWorkbench.js';
import { tokenMatches } from '../src/workbench/requestGuard.js';
import { memoryIo } from './support/memoryIo.js';

const SECRET = 'sk-test-0123456789abcdefSECRET';
let root: string;
let runDir: string;
let workbench: Workbench;
let port: number;
let token: string;
let before: string[];

beforeAll(async () => {
  process.env.OPENAI_API_KEY = SECRET;
  process.env.GEPA_WORKBENCH_TEST_SECRET = SECRET;
  root = mkdtempSync(join(tmpdir(), 'gepa-wb-security-'));
  runDir = join(root, 'run');
  expect(await runCli(['demo', '--run-dir', runDir, '--budget', '100', '--workers', '4', '--metric-call-ms', '0', '--reflection-ms', '0'], memoryIo())).toBe(0);
  workbench = await serveWorkbench({ runDir });
  const url = new URL(workbench.url);
  port = Number(url.port);
  token = url.searchParams.get('token') ?? '';
  before = readdirSync(runDir).sort();
});

afterAll(async () => {
  await workbench?.close();
  delete process.env.OPENAI_API_KEY;
  delete process.env.GEPA_WORKBENCH_TEST_SECRET;
  rmSync(root, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One request as a browser or an attacker would make it: any Host, any method, any header. */
function call(path: string, options: { method?: string; host?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: options.host ?? `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      // An event stream that was let in never ends: its status is the answer.
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, body: '', headers: res.headers });
        req.destroy();
        return;
      }
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const control = (body: unknown, query = '', headers: Record<string, string> = {}) =>
  call(`/api/control${query}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-workbench-token': token, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('the workbench over HTTP', () => {
  it('listens on loopback and gives one URL with a token', () => {
    expect(workbench.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  });

  it('answers nothing without the right token, on every route (401 without, 403 wrong, whatever its length)', async () => {
    const routes = ['/', '/events', '/api/state', '/api/candidate?i=1', '/report.html', '/nowhere'];
    const wrongSameLength = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const route of routes) {
      const join_ = route.includes('?') ? '&' : '?';
      const none = await call(route);
      expect(none.status, route).toBe(401);
      for (const wrong of [wrongSameLength, 'short', `${token}x`]) {
        const answer = await call(`${route}${join_}token=${encodeURIComponent(wrong)}`);
        expect(answer.status, `${route} with a wrong token`).toBe(403);
        expect(answer.body).not.toMatch(/valset|candidate #|system_prompt|GEPA demo/);
      }
      expect((await call(route, { headers: { 'x-workbench-token': token } })).status, route).not.toBe(401);
    }
    expect(tokenMatches(token, token)).toBe(true);
    expect(tokenMatches(undefined, token)).toBe(false);
  });

  it('refuses a Host that is not this server (DNS rebinding), with the right token', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${port + 1}`, 'localhost']) {
      const answer = await call(`/?token=${token}`, { host });
      expect(answer.status, host).toBe(403);
      expect(answer.body).toContain('Host');
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) expect((await call(`/?token=${token}`, { host })).status, host).toBe(200);
  });

  it('serves the page with a strict policy: its own nonce-d script only, no referrer, no framing, no caching', async () => {
    const page = await call(`/?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('best valset score');
    // The header reads right before its script runs or its event stream connects.
    const { status: state } = JSON.parse((await call(`/api/state?token=${token}`)).body) as { status: { status: string; bestScore: number } };
    expect(page.body).toContain(`id="wb-best">${state.bestScore.toFixed(3)}</span>`);
    expect(page.body).toContain(`id="wb-pill">${state.status}</span>`);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'; script-src 'nonce-[^']+'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body.match(/<script\b/g)?.length).toBe(1);
  });

  it('takes a control only as a POST of JSON with the token in its header', async () => {
    expect((await call('/api/control', { headers: { 'x-workbench-token': token } })).status).toBe(405);
    const inUrl = await call(`/api/control?token=${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action":"drain"}' });
    expect(inUrl.status).toBe(403);
    expect(inUrl.body).toContain('x-workbench-token');
    expect((await control('{"action":"drain"}', '', { 'content-type': 'text/plain' })).status).toBe(400);
  });

  it('answers bad requests with a clear error and changes nothing', async () => {
    const cases: Array<[unknown, string, number, RegExp]> = [
      ['{"action": "drain"', '', 400, /malformed body/],
      [{ action: 'explode' }, '', 400, /invalid control: action/],
      [{ action: 'drain', extra: 1 }, '', 400, /invalid control/],
      [{ action: 'drain' }, '?run=../../etc', 404, /unknown run/],
      [{ action: 'drain' }, '?run=branches/7', 404, /unknown run/],
      [{ action: 'drain' }, '', 409, /not running/],
      [{ action: 'stop' }, '', 409, /not running/],
      [{ action: 'resume' }, '', 400, /finished \(maxMetricCalls\) with a budget of 100 metric calls; give a larger budget/],
      [{ action: 'resume', budget: 50 }, '', 400, /has spent \d+ metric calls already/],
      [{ action: 'branch', candidate: 1, schedule: 'sideways!' }, '', 400, /schedule/],
      [{ action: 'branch', candidate: 999 }, '', 400, /no candidate #999|invocation/],
      [{ action: 'branch', candidate: 1, budget: -5 }, '', 400, /budget/],
      [{ action: 'branch', candidate: 1, reflectionModel: 'gpt-5-mini' }, '', 400, /simulated/],
    ];
    for (const [body, query, status, message] of cases) {
      const answer = await control(body, query);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(JSON.parse(answer.body).error, JSON.stringify(body)).toMatch(message);
    }
    expect(readdirSync(runDir).sort()).toEqual(before);
    expect(existsSync(join(runDir, 'STOP'))).toBe(false);
  });

  it('serves no file but report.html, and no environment variable or key', async () => {
    for (const path of ['/config.json', '/log.jsonl', '/invocation.json', '/../../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/report.html/../config.json']) {
      expect((await call(`${path}?token=${token}`)).status, path).toBe(404);
    }
    for (const run of ['..', '../run', '/etc', 'branches/1/../../..', 'branches/0']) {
      expect((await call(`/api/state?token=${token}&run=${encodeURIComponent(run)}`)).status, run).toBe(404);
    }
    const bodies = await Promise.all(['/', '/api/state', '/api/candidate?i=0', '/api/candidate?i=1', '/report.html'].map((p) => call(`${p}${p.includes('?') ? '&' : '?'}token=${token}`)));
    for (const b of bodies) {
      expect(b.status).toBe(200);
      expect(b.body).not.toContain(SECRET);
      expect(b.body).not.toContain(process.env.HOME ?? '/nonexistent-home');
    }
  });

  it('listens elsewhere than loopback only when told to, with a warning', async () => {
    await expect(serveWorkbench({ runDir, host: '0.0.0.0' })).rejects.toThrow(/not loopback.*allowRemote/);
    const io = memoryIo({ cwd: root });
    expect(await runCli(['watch', runDir, '--host', '0.0.0.0'], io)).toBe(2);
    expect(io.err()).toContain('--allow-remote');
    expect(io.out()).toBe('');
    const warned = memoryIo();
    expect(uiSettings({ ui: true, uiHost: '192.0.2.10', allowRemote: true }, warned)).toEqual({ host: '192.0.2.10', port: 0, allowRemote: true });
    expect(warned.err()).toMatch(/warning: the workbench listens on 192\.0\.2\.10, not loopback/);
  });
});
