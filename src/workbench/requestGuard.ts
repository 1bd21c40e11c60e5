// Who may talk to the workbench: a request must name this server in its Host header (a page on
// another site that a DNS rebinding points at 127.0.0.1 still says its own name) and carry the
// token (compared in constant time); a control must also be a POST with the token in a header,
// which a page on another origin cannot send without the browser asking this server first.
// Everything refused gets a short plain-text answer and nothing of the run.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header a control carries the token in (also accepted on any request instead of `?token=`). */
export const TOKEN_HEADER = 'x-workbench-token';

/** 32 random bytes, URL-safe: what the printed URL carries. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison; a wrong length is compared against itself, so it costs the same and fails. */
export function tokenMatches(given: string | undefined, token: string): boolean {
  const expected = Buffer.from(token, 'utf8');
  const actual = Buffer.from(given ?? '', 'utf8');
  const same = actual.length === expected.length;
  return timingSafeEqual(same ? actual : expected, expected) && same && given !== undefined;
}

/** Host names that mean this machine's loopback. */
export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'];

export const isLoopback = (host: string): boolean => LOOPBACK_HOSTS.includes(host) || /^127(\.\d{1,3}){3}$/.test(host);

/** The Host header values this server answers to: its loopback names (or the one host it was bound to) with its port. */
export function allowedHosts(boundHost: string, port: number): Set<string> {
  const names = isLoopback(boundHost) ? ['127.0.0.1', 'localhost', '[::1]', ...(boundHost.includes(':') ? [] : [boundHost])] : [boundHost.includes(':') ? `[${boundHost}]` : boundHost];
  return new Set(names.map((name) => `${name}:${port}`));
}

/** Why a request is refused, as its status and a one-line body; undefined when it may go on. */
export interface Refusal {
  status: 401 | 403 | 405;
  message: string;
}

/**
 * The checks every request passes, in order: its Host is this server (403), it carries a token
 * (401) and the right one (403); a control (`control`) is a POST (405) with the token in the
 * TOKEN_HEADER header, never only in the URL (403).
 */
export function refuse(request: IncomingMessage, url: URL, hosts: ReadonlySet<string>, token: string, control: boolean): Refusal | undefined {
  const host = (request.headers.host ?? '').toLowerCase();
  if (!hosts.has(host)) return { status: 403, message: 'Forbidden: this server answers only to its own loopback address (Host header refused)' };
  const header = request.headers[TOKEN_HEADER];
  const fromHeader = typeof header === 'string' ? header : undefined;
  const given = control ? fromHeader : (fromHeader ?? url.searchParams.get('token') ?? undefined);
  if (control) {
    if (request.method !== 'POST') return { status: 405, message: 'Method Not Allowed: a control is a POST' };
    if (fromHeader === undefined) return { status: url.searchParams.has('token') ? 403 : 401, message: `a control needs the token in the ${TOKEN_HEADER} header` };
  }
  if (given === undefined || given === '') return { status: 401, message: 'Unauthorized: open the URL gepa-actors printed (it carries the token)' };
  if (!tokenMatches(given, token)) return { status: 403, message: 'Forbidden: wrong token' };
  return undefined;
}
