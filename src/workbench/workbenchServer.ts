// The workbench's HTTP server (node:http, server-sent events): one page per run, the run at its
// root and the branches inside its directory (`?run=branches/2`), each kept current by pushing
// the panels its changes redraw: light ones at most every 150 ms, heavy ones once a second, none
// while no page is open. Every request passes requestGuard (Host, token; controls: POST and the
// token in a header). It serves the page, its events, a candidate's detail, the run's state as
// JSON, the run directory's report.html, and the controls: no other file, no environment.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { REPORT_FILE } from '../report/renderReport.js';
import { RUN_FILES } from '../storage/runDirectory.js';
import { errorMessage } from '../errors/errorMessage.js';
import { launchCommand, type CommandLauncher } from './commandLauncher.js';
import { allowedHosts, isLoopback, refuse, newToken } from './requestGuard.js';
import { BRANCHES_DIR, branchOrigin, branchPaths, listBranches, type BranchLink } from './runBranches.js';
import { availableControls, ControlError, parseControlRequest, runControl, type ControlTarget } from './runControls.js';
import { RunDirectoryFollower } from './runDirectoryFollower.js';
import { readInvocation } from '../storage/runInvocation.js';
import { RunView, type RunStatus } from './runView.js';
import type { LiveRunFeed } from './liveRun.js';
import { renderWorkbenchPage } from './workbenchPage.js';
import { HEAVY_PANELS, panelsFor, renderCandidate, renderPanels, statusOf, WORKBENCH_PANELS, type PanelContext, type WorkbenchPanel, type WorkbenchStatus } from './workbenchPanels.js';

/** Light panels are pushed at most this often, ms. */
const LIGHT_MS = 150;
/** Heavy panels (growing with the run) at most this often, ms. */
const HEAVY_MS = 1000;
/** While a run runs, its clock and charts move on this often, ms. */
const TICK_MS = 1000;
/** The statuses of a run that may still change. */
const ACTIVE: ReadonlySet<RunStatus> = new Set(['waiting', 'running', 'draining', 'stopping']);
/** A comment on every event stream this often keeps proxies and idle timeouts from closing it. */
const KEEPALIVE_MS = 15_000;
/** The largest control body read. */
const MAX_BODY = 16_384;

/** A run the server was started for: a directory, a run in this process, or both. */
export interface WorkbenchRoot {
  /** Its run directory (followed as it grows), when it has one. */
  dir?: string;
  /** A run in this process (its view is the feed's). */
  live?: LiveRunFeed;
  /** The page's title (default: the run directory's invocation title, or its name). */
  title?: string;
}

export interface WorkbenchServerOptions {
  /** Default 127.0.0.1. Another address needs allowRemote. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Listen on a non-loopback host: anyone who can reach it and has the URL can steer the run. */
  allowRemote?: boolean;
  /** Default: 32 random bytes. */
  token?: string;
  /** Starts resumed runs and branches (default: this package's command in a detached process). */
  launch?: CommandLauncher;
  /** How often a followed directory is looked at when fs.watch says nothing, ms. */
  pollMs?: number;
}

/** A started server: its URL (with the token), and how to stop it. */
export interface WorkbenchServer {
  url: string;
  host: string;
  port: number;
  token: string;
  /** Redraw now (a live run changed). */
  changed(): void;
  close(): Promise<void>;
}

/** One run the server shows: its view, how it is followed, who is watching, what they were sent. */
class WatchedRun {
  readonly view: RunView;
  private follower: RunDirectoryFollower | undefined;
  private readonly clients = new Set<ServerResponse>();
  private readonly panels: Partial<Record<WorkbenchPanel, string>> = {};
  private stale = true;
  private heavyDue = new Set<WorkbenchPanel>();
  private lastLight = 0;
  private lastHeavy = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private lastControls = '';

  constructor(
    readonly id: string,
    readonly dir: string | undefined,
    readonly live: LiveRunFeed | undefined,
    private readonly titleGiven: string | undefined,
    private readonly originRun: string | undefined,
    private readonly options: WorkbenchServerOptions,
  ) {
    const invocation = dir ? readInvocation(dir) : undefined;
    this.view = live?.view ?? new RunView({ ...(invocation ? { names: invocation.models } : {}) });
    if (invocation && live) this.view.names = invocation.models;
    if (dir) {
      this.follower = new RunDirectoryFollower(dir, this.view, () => this.changed(), { live: live !== undefined, ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}) });
      if (!live) this.view.elapsedNow = () => this.follower?.elapsedNow();
      this.follower.start();
    }
  }

  title(): string {
    if (this.titleGiven) return this.titleGiven;
    const invocation = this.dir ? readInvocation(this.dir) : undefined;
    const origin = this.dir ? branchOrigin(this.dir) : undefined;
    const name = invocation?.title ?? (this.dir ? `GEPA run ${basename(this.dir)}` : 'GEPA run');
    return origin ? `${name} (branch ${origin.n})` : name;
  }

  target(launch: CommandLauncher): ControlTarget {
    return { view: this.view, launch, ...(this.dir ? { dir: this.dir } : {}), ...(this.live ? { live: { drain: () => this.live?.stops.drain(), stop: () => this.live?.stops.stop(), running: () => this.live?.running() ?? false } } : {}) };
  }

  private context(): PanelContext {
    const branches: BranchLink[] = this.dir ? listBranches(this.dir).map((b) => ({ ...b, dir: `${this.id ? `${this.id}/` : ''}${BRANCHES_DIR}/${b.n}` })) : [];
    const origin = this.dir ? branchOrigin(this.dir) : undefined;
    return {
      title: this.title(),
      branches,
      ...(origin ? { origin } : {}),
      ...(this.originRun !== undefined ? { originRun: this.originRun } : {}),
      hasReport: this.hasReport(),
      liveOnly: this.live === undefined,
    };
  }

  /** The status line as it stands. */
  status(): WorkbenchStatus {
    return statusOf(this.view, this.title());
  }

  hasReport(): boolean {
    return this.dir !== undefined && existsSync(join(this.dir, REPORT_FILE));
  }

  /** Every panel drawn afresh (a page is opening and the drawings are stale). */
  private renderAll(): void {
    this.view.takeChanges();
    Object.assign(this.panels, renderPanels(this.view, new Set(WORKBENCH_PANELS), this.context()));
    this.stale = false;
    this.heavyDue.clear();
    this.lastLight = this.lastHeavy = performance.now();
  }

  pagePanels(): Partial<Record<WorkbenchPanel, string>> {
    if (this.stale) this.renderAll();
    return this.panels;
  }

  /** Something changed: redraw soon, no sooner than LIGHT_MS after the last push. */
  changed(): void {
    if (this.clients.size === 0) {
      this.stale = true;
      return;
    }
    // Quiet for a while (or a run that never waits for I/O, whose promises keep the event loop from
    // ever reaching a timer): push now, from here. A socket write is tried at once, so it still leaves.
    if (performance.now() - this.lastLight >= 2 * LIGHT_MS) {
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.flush();
      return;
    }
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastLight + LIGHT_MS - performance.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.clients.size === 0) {
      this.stale = true;
      return;
    }
    const now = performance.now();
    const due = panelsFor(this.view.takeChanges());
    for (const id of this.heavyDue) due.add(id);
    // A run that has ended changes no more: everything is drawn now, so the page never shows the
    // final status beside a lineage or chart still waiting for its next second.
    const heavyNow = now - this.lastHeavy >= HEAVY_MS || !ACTIVE.has(this.view.status);
    this.heavyDue = new Set([...due].filter((id) => HEAVY_PANELS.has(id) && !heavyNow));
    for (const id of this.heavyDue) due.delete(id);
    if ([...due].some((id) => HEAVY_PANELS.has(id))) this.lastHeavy = now;
    this.lastLight = now;
    const drawn = due.size > 0 ? renderPanels(this.view, due, this.context()) : {};
    const sent: Partial<Record<WorkbenchPanel, string>> = {};
    for (const [id, html] of Object.entries(drawn) as Array<[WorkbenchPanel, string]>) {
      if (this.panels[id] !== html) sent[id] = html;
      this.panels[id] = html;
    }
    // The status line first: it is small, and leaves at once even when a large panel waits for the socket.
    this.broadcast('status', statusOf(this.view, this.title()));
    if (Object.keys(sent).length > 0) this.broadcast('panels', sent);
    this.pushControls(false);
    if (this.heavyDue.size > 0 && this.timer === undefined) this.timer = setTimeout(() => this.flush(), Math.max(0, this.lastHeavy + HEAVY_MS - now));
  }

  private controls(launch: CommandLauncher): Record<string, string | null> {
    return availableControls(this.target(launch));
  }

  private pushControls(force: boolean, to?: ServerResponse): void {
    const controls = JSON.stringify(this.controls(this.options.launch ?? launchCommand));
    if (!force && controls === this.lastControls) return;
    this.lastControls = controls;
    if (to) send(to, 'controls', controls);
    else for (const client of this.clients) send(client, 'controls', controls);
  }

  private broadcast(event: string, data: unknown): void {
    const text = JSON.stringify(data);
    for (const client of this.clients) send(client, event, text);
  }

  /** A page's event stream: everything as it stands now, then the changes. */
  subscribe(request: IncomingMessage, response: ServerResponse): void {
    response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    response.write('retry: 2000\n\n');
    this.clients.add(response);
    send(response, 'status', JSON.stringify(statusOf(this.view, this.title())));
    send(response, 'panels', JSON.stringify(this.pagePanels()));
    this.pushControls(true, response);
    const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), KEEPALIVE_MS);
    this.ticker ??= setInterval(() => this.tick(), TICK_MS);
    request.on('close', () => {
      clearInterval(keepAlive);
      this.clients.delete(response);
      if (this.clients.size === 0 && this.ticker !== undefined) {
        clearInterval(this.ticker);
        this.ticker = undefined;
      }
    });
  }

  /** Once a second while pages are open: the clock moves (elapsed, the over-time chart), the controls may change. */
  private tick(): void {
    this.follower?.poll();
    if (this.view.status === 'running' || this.view.status === 'draining' || this.view.status === 'stopping') {
      this.view.applyTick();
      this.changed();
    } else {
      this.pushControls(false);
    }
  }

  close(): void {
    this.follower?.close();
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.ticker !== undefined) clearInterval(this.ticker);
    for (const client of this.clients) client.end();
    this.clients.clear();
  }
}

function send(response: ServerResponse, event: string, data: string): void {
  response.write(`event: ${event}\ndata: ${data}\n\n`);
  // node:http corks the socket for a write and uncorks it on the next tick, which a run that never
  // waits for I/O does not reach (its promises run first): uncorked here, the event leaves now.
  response.socket?.uncork();
}

/** On every answer: no caching, no referrer (the URL carries the token), not framed, not sniffed. */
const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
};

/** A run id: '' (the root) or `branches/<n>`, nested. */
const RUN_ID = /^(branches\/[1-9]\d*)(\/branches\/[1-9]\d*)*$/;

export async function startWorkbenchServer(root: WorkbenchRoot, options: WorkbenchServerOptions = {}): Promise<WorkbenchServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host) && options.allowRemote !== true) {
    throw new ControlError(400, `host ${host} is not loopback: anyone who can reach it could watch and steer the run; pass allowRemote (--allow-remote) to mean it`);
  }
  const token = options.token ?? newToken();
  const launch = options.launch ?? launchCommand;
  const runs = new Map<string, WatchedRun>();
  runs.set('', new WatchedRun('', root.dir, root.live, root.title, undefined, options));
  let hosts = new Set<string>();

  /** The run `id` names, made on first use; undefined for anything but the root and its branches that exist. */
  const runFor = (id: string): WatchedRun | undefined => {
    const known = runs.get(id);
    if (known) return known;
    if (root.dir === undefined || !RUN_ID.test(id)) return undefined;
    const parts = id.split('/');
    const n = Number(parts.at(-1));
    const parentId = parts.slice(0, -2).join('/');
    const parent = runFor(parentId);
    if (!parent?.dir || !existsSync(branchPaths(parent.dir, n).record)) return undefined;
    const run = new WatchedRun(id, join(root.dir, id), undefined, undefined, parentId, options);
    runs.set(id, run);
    return run;
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, { error: `the workbench failed: ${errorMessage(error)}` });
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://workbench.invalid');
    const control = url.pathname === '/api/control';
    const refused = refuse(request, url, hosts, token, control);
    if (refused) {
      response.writeHead(refused.status, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', ...(refused.status === 405 ? { allow: 'POST' } : {}) });
      response.end(`${refused.status} ${refused.message}\n`);
      return;
    }
    const id = url.searchParams.get('run') ?? '';
    const run = runFor(id);
    if (!run) return answer(response, 404, { error: `unknown run ${JSON.stringify(id)}: the workbench serves its run and the branches in its directory` });
    if (control) return controlRun(request, response, run);
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(response, 405, { error: 'only GET (and POST /api/control)' });
    switch (url.pathname) {
      case '/':
        return page(response, run);
      case '/events':
        return run.subscribe(request, response);
      case '/api/state':
        return answer(response, 200, { status: statusOf(run.view, run.title()), controls: availableControls(run.target(launch)) });
      case '/api/candidate': {
        const i = Number(url.searchParams.get('i'));
        const html = Number.isInteger(i) && i >= 0 ? renderCandidate(run.view, i) : undefined;
        if (html === undefined) return text(response, 404, `No candidate #${url.searchParams.get('i')} in this run (yet).`);
        return text(response, 200, html, 'text/html');
      }
      case `/${REPORT_FILE}`: {
        if (!run.hasReport()) return text(response, 404, 'This run has no report.html yet: it is written when the run ends.');
        response.writeHead(200, {
          ...SECURITY_HEADERS,
          'content-type': 'text/html; charset=utf-8',
          // The report's own inline script and style; nothing fetched.
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        });
        response.end(readFileSync(join(run.dir as string, REPORT_FILE)));
        return;
      }
      default:
        return text(response, 404, 'Not found.');
    }
  }

  function page(response: ServerResponse, run: WatchedRun): void {
    const nonce = randomBytes(16).toString('base64');
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    });
    response.end(renderWorkbenchPage({ title: run.title(), runId: run.id, ...(run.dir ? { dir: run.dir } : {}), panels: run.pagePanels(), nonce, hasReport: run.hasReport(), status: run.status() }));
  }

  async function controlRun(request: IncomingMessage, response: ServerResponse, run: WatchedRun): Promise<void> {
    let body: unknown;
    try {
      const type = request.headers['content-type'] ?? '';
      if (!/^application\/json\b/.test(type)) throw new ControlError(400, 'a control body is JSON (content-type: application/json)');
      body = JSON.parse(await readBody(request));
    } catch (error) {
      return answer(response, error instanceof ControlError ? error.status : 400, { error: error instanceof ControlError ? error.message : `malformed body: ${errorMessage(error)}` });
    }
    try {
      const outcome = await runControl(run.target(launch), parseControlRequest(body));
      if (outcome.branch) run.view.markLinks();
      run.changed();
      answer(response, 200, { ok: true, ...outcome });
    } catch (error) {
      if (error instanceof ControlError) return answer(response, error.status, { error: error.message });
      throw error;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(host, port);
  const shownHost = isLoopback(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    host,
    port,
    token,
    changed: () => runs.get('')?.changed(),
    async close() {
      for (const run of runs.values()) run.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8' });
  response.end(`${JSON.stringify(body)}\n`);
}

function text(response: ServerResponse, status: number, body: string, type = 'text/plain'): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': `${type}; charset=utf-8` });
  response.end(body);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new ControlError(400, `a control body is at most ${MAX_BODY} bytes`));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Whether `dir` holds a run the server can show (or will: a directory not written yet is followed as it appears). */
export function isRunDirectory(dir: string): boolean {
  return existsSync(join(dir, RUN_FILES.config)) || existsSync(join(dir, RUN_FILES.log));
}
