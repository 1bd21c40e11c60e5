// A small OpenAI-compatible server on 127.0.0.1 (random port) for tests: POST
// /v1/chat/completions and GET /v1/models over real HTTP. Each request takes the next scripted
// step (success, 429, 500, hang, dropped connection, malformed body, empty content, refusal, tool calls, any status), else the
// misbehaviour mode (every request alike until cleared), else a seeded random fault, else a reply from the responder. It records every request and the usage
// it reported, so tests can check dollars exactly.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Rng } from '../../src/gepa/core/rng.js';

export interface ServerUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type FakeStep =
  | { kind: 'reply'; text: string; usage?: ServerUsage }
  | { kind: 'rate-limit'; retryAfterSeconds?: number; retryAfterMs?: number }
  | { kind: 'server-error'; status?: number }
  | { kind: 'status'; status: number; message: string }
  | { kind: 'hang' }
  /** Headers and half a body, then the connection is cut. */
  | { kind: 'drop' }
  | { kind: 'malformed' }
  | { kind: 'empty'; content?: '' | null; finishReason?: string }
  | { kind: 'refusal'; refusal: string }
  | { kind: 'no-usage'; text: string }
  /** An assistant turn that calls tools (finish_reason tool_calls), as a model using tools answers. */
  | { kind: 'tool-calls'; calls: Array<{ name: string; arguments: unknown }> }
  /** A body echoing the request's headers (Authorization included), as some proxies do: an error under `status`, else 200 and not a completion. */
  | { kind: 'echo-headers'; status: number };

export interface ChatMessage {
  role: string;
  /** null on an assistant turn that only called tools. */
  content: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  /** The SDK's x-stainless-timeout header: the request's timeout, in seconds. */
  timeoutHeader?: string;
  body: { model?: string; messages?: ChatMessage[]; [key: string]: unknown } | undefined;
  /** What this request was answered with. */
  step: FakeStep['kind'];
  /** The usage its reply reported, if any. */
  usage?: ServerUsage;
}

export type Responder = (messages: ChatMessage[]) => string;

export interface FakeServerOptions {
  responder?: Responder;
  /** Random faults per request, decided by `new Rng(seed)`. */
  faults?: { seed: number; rateLimit?: number; serverError?: number; retryAfterMs?: number };
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  /** Ids served by GET /v1/models; null = no such route (404), as on some servers. */
  models?: string[] | null;
  /** Per chat request (the nth, from 1, for `model`), after scripted steps and the mode: a step, or undefined for the usual. */
  stepFor?: (messages: ChatMessage[], n: number, model: string) => FakeStep | undefined;
  /** Called as each chat request arrives, before it is answered. */
  onRequest?: (request: RecordedRequest) => void;
}

export interface FakeOpenAIServer {
  baseURL: string;
  requests: RecordedRequest[];
  /** The usage of every reply that reported one, in order. */
  usageReported: ServerUsage[];
  /** Steps for the next requests, consumed in order. */
  script(...steps: FakeStep[]): void;
  /** Answers every chat request (after scripted steps) with `step`, until set to undefined. */
  setMode(step: FakeStep | undefined): void;
  /** Resolves once `n` chat requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  close(): Promise<void>;
}

/** Deterministic usage: a token per 4 characters, at least one. */
export function fakeUsage(messages: ChatMessage[], text: string): ServerUsage {
  const promptChars = messages.reduce((sum, m) => sum + (m.content ?? '').length, 0);
  return { prompt_tokens: Math.max(1, Math.ceil(promptChars / 4)), completion_tokens: Math.max(1, Math.ceil(text.length / 4)) };
}

const ONLY_NUMBER = /only the (final )?(number|answer)/i;

/**
 * The default responder, enough for a small optimization: arithmetic questions ("What is 2 + 3?")
 * get a chatty answer unless the system prompt asks for only the number; reflection prompts get
 * back their current instruction plus that request, in a fenced block.
 */
export const arithmeticResponder: Responder = (messages) => {
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const user = messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  if (user.startsWith('You are improving one part of an LLM system')) {
    const current = /```\n([\s\S]*?)\n```/.exec(user)?.[1] ?? '';
    return ['```', `${current} Reply with only the final number.`.trim(), '```'].join('\n');
  }
  const match = /(-?\d+)\s*([+\-*x])\s*(-?\d+)/.exec(user);
  if (!match) return "I don't know.";
  const [a, op, b] = [Number(match[1]), match[2], Number(match[3])];
  const result = op === '+' ? a + b : op === '-' ? a - b : a * b;
  return ONLY_NUMBER.test(system) ? String(result) : `Let me compute: ${a} ${op} ${b} = ${result}.`;
};

/**
 * A model with an `add` tool, for stepFor: an arithmetic question's first turn calls add(a, b);
 * once the tool's result is in the conversation, the responder answers as usual.
 */
export function addToolStep(messages: ChatMessage[]): FakeStep | undefined {
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  const sum = /^What is (-?\d+) \+ (-?\d+)\?$/.exec(user);
  if (!sum || messages.some((m) => m.role === 'tool')) return undefined;
  return { kind: 'tool-calls', calls: [{ name: 'add', arguments: { a: Number(sum[1]), b: Number(sum[2]) } }] };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function completion(model: string, content: string | null, usage: ServerUsage | undefined, extra: Record<string, unknown> = {}) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, ...extra }, finish_reason: 'stop' }],
    ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
  };
}

export async function startFakeOpenAIServer(options: FakeServerOptions = {}): Promise<FakeOpenAIServer> {
  const responder = options.responder ?? arithmeticResponder;
  const rng = options.faults ? new Rng(options.faults.seed) : undefined;
  const queue: FakeStep[] = [];
  const requests: RecordedRequest[] = [];
  const usageReported: ServerUsage[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let mode: FakeStep | undefined;
  const chatCount = () => requests.filter((r) => r.path.endsWith('/chat/completions')).length;

  const nextStep = (messages: ChatMessage[], model: string): FakeStep => {
    const scripted = queue.shift();
    if (scripted) return scripted;
    if (mode) return mode;
    const chosen = options.stepFor?.(messages, chatCount() + 1, model);
    if (chosen) return chosen;
    if (rng && options.faults) {
      const r = rng.next();
      const { rateLimit = 0, serverError = 0, retryAfterMs = 1 } = options.faults;
      if (r < rateLimit) return { kind: 'rate-limit', retryAfterMs };
      if (r < rateLimit + serverError) return { kind: 'server-error' };
    }
    return { kind: 'reply', text: responder(messages) };
  };

  const server = createServer(async (req, res) => {
    const path = req.url ?? '';
    const raw = await readBody(req);
    const authorization = req.headers.authorization;
    const timeoutHeader = req.headers['x-stainless-timeout'];
    const record: RecordedRequest = {
      method: req.method ?? '',
      path,
      authorization,
      ...(typeof timeoutHeader === 'string' ? { timeoutHeader } : {}),
      body: undefined,
      step: 'reply',
    };
    if (options.apiKey !== undefined && authorization !== `Bearer ${options.apiKey}`) {
      requests.push({ ...record, step: 'status' });
      return sendJson(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
    }
    if (req.method === 'GET' && path === '/v1/models' && options.models !== null) {
      requests.push(record);
      const data = (options.models ?? ['fake-model']).map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' }));
      return sendJson(res, 200, { object: 'list', data });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      requests.push({ ...record, step: 'status' });
      return sendJson(res, 404, { error: { message: `No route ${req.method} ${path}` } });
    }
    record.body = JSON.parse(raw) as RecordedRequest['body'];
    const messages = record.body?.messages ?? [];
    const model = record.body?.model ?? 'fake-model';
    const step = nextStep(messages, model);
    record.step = step.kind;
    requests.push(record);
    options.onRequest?.(record);
    for (const w of waiters.filter((w) => chatCount() >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }

    const reply = (content: string | null, usage: ServerUsage | undefined, extra?: Record<string, unknown>) => {
      if (usage) usageReported.push(usage);
      record.usage = usage;
      sendJson(res, 200, completion(model, content, usage, extra));
    };
    switch (step.kind) {
      case 'reply':
        return reply(step.text, step.usage ?? fakeUsage(messages, step.text));
      case 'no-usage':
        return reply(step.text, undefined);
      case 'rate-limit': {
        const headers: Record<string, string> = {};
        if (step.retryAfterMs !== undefined) headers['retry-after-ms'] = String(step.retryAfterMs);
        if (step.retryAfterSeconds !== undefined) headers['retry-after'] = String(step.retryAfterSeconds);
        return sendJson(res, 429, { error: { message: 'Rate limit reached', type: 'rate_limit_error' } }, headers);
      }
      case 'server-error':
        return sendJson(res, step.status ?? 500, { error: { message: 'The server had an error', type: 'server_error' } });
      case 'status':
        return sendJson(res, step.status, { error: { message: step.message, type: 'invalid_request_error' } });
      case 'hang':
        return; // never answered; close() destroys the socket
      case 'drop':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices": [');
        return void setImmediate(() => res.socket?.destroy());
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"choices": [ this is not json');
      case 'empty': {
        const usage = fakeUsage(messages, '');
        usageReported.push(usage);
        record.usage = usage;
        const body = completion(model, step.content === undefined ? '' : step.content, usage);
        if (step.finishReason) body.choices[0]!.finish_reason = step.finishReason;
        return sendJson(res, 200, body);
      }
      case 'echo-headers': {
        // Authorization first, so that it survives a client's truncated preview of the body.
        const echo = `request headers: ${JSON.stringify({ authorization: req.headers.authorization, ...req.headers })}`;
        return step.status === 200 ? sendJson(res, 200, { echo }) : sendJson(res, step.status, { error: { message: echo, type: 'invalid_request_error' } });
      }
      case 'tool-calls': {
        const n = chatCount();
        const tool_calls = step.calls.map((c, i) => ({ id: `call_${n}_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
        const usage = fakeUsage(messages, JSON.stringify(tool_calls));
        usageReported.push(usage);
        record.usage = usage;
        const body = completion(model, null, usage, { tool_calls });
        body.choices[0]!.finish_reason = 'tool_calls';
        return sendJson(res, 200, body);
      }
      case 'refusal':
        return reply(null, fakeUsage(messages, step.refusal), { refusal: step.refusal });
    }
  });

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    usageReported,
    script: (...steps) => void queue.push(...steps),
    setMode: (step) => {
      mode = step;
    },
    waitForRequests: (n) =>
      chatCount() >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    close: async () => {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
