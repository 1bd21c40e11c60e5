// Stand-in hosts for fleet tests and benchmarks: Linux network namespaces, each joined by a veth
// pair to one bridge in this namespace, with addresses in a private /24 the harness picked itself
// (one no interface or route here already uses). A process started in a host (`wrapper`) reaches
// the others, and this process reaches it, only across those interfaces, so a link can be cut
// (`cut`) as a cable would be. Every name starts with `gx<pid>-`: `destroy()` removes what this
// process made (its namespaces, their processes and links, the bridge), and `createNetnsHosts`
// first removes what a dead process of that prefix left behind. Needs root and iproute2;
// `netnsSupport()` says why not instead of failing.
import { spawnSync } from 'node:child_process';
import { onPath } from './testPrograms.js';

const FAMILY = 'gx';
// Any command here answers in well under a second; a hung one must not hang a test.
const COMMAND_TIMEOUT_MS = 10_000;

/** One stand-in host: a network namespace with one address. */
export interface NetnsHost {
  /** The namespace's name (`ip netns exec NAME ...`). */
  readonly namespace: string;
  /** Its address on the bridge. */
  readonly address: string;
  /** The veth end in this namespace: taking it down cuts the host off. */
  readonly link: string;
  /** Prefix of a command to run it in this host. */
  readonly wrapper: readonly string[];
}

export interface NetnsHosts {
  /** This namespace's address on the bridge (a server here bound to it is reachable from every host). */
  readonly bridgeAddress: string;
  /** A new host (at most 200). */
  addHost(): NetnsHost;
  /** Cuts the host's link (its packets go nowhere; connections hang, as on a dead network). */
  cut(host: NetnsHost): void;
  /** Restores a cut link. */
  restore(host: NetnsHost): void;
  /** Kills every process in the hosts, removes the namespaces and the bridge. Safe to call twice. */
  destroy(): void;
}

function ip(args: readonly string[], { allowFailure = false } = {}): string {
  const run = spawnSync('ip', args, { encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS });
  if (run.status !== 0 && !allowFailure) {
    throw new Error(`ip ${args.join(' ')} failed (${run.error?.message ?? `exit ${run.status}`}): ${run.stderr.trim()}`);
  }
  return run.stdout ?? '';
}

let support: { ok: true } | { ok: false; reason: string } | undefined;

/** Whether this process may make network namespaces (root, iproute2, a kernel and sandbox that allow it); tried once. */
export function netnsSupport(): { ok: true } | { ok: false; reason: string } {
  if (support) return support;
  if (!onPath('ip', process.env)) return (support = { ok: false, reason: 'no `ip` command (iproute2) on PATH' });
  if (process.getuid?.() !== 0) return (support = { ok: false, reason: 'network namespaces need root' });
  const probe = `${FAMILY}${process.pid.toString(36)}-probe`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS });
  if (made.status !== 0) return (support = { ok: false, reason: `\`ip netns add\` is not allowed here: ${made.stderr.trim() || made.error?.message}` });
  ip(['netns', 'del', probe], { allowFailure: true });
  return (support = { ok: true });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The pid a name of the family was made by, or undefined for a name outside it. */
function ownerOf(name: string): number | undefined {
  const match = /^gx([0-9a-z]+)-/.exec(name);
  return match ? parseInt(match[1]!, 36) : undefined;
}

function killAllIn(namespace: string): void {
  for (const pid of ip(['netns', 'pids', namespace], { allowFailure: true }).split(/\s+/).filter(Boolean)) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

/** Namespaces and links of the family whose maker is no longer running: a crashed run's leftovers. */
function removeLeftovers(): void {
  const stale = (name: string) => {
    const owner = ownerOf(name);
    return owner !== undefined && !alive(owner);
  };
  for (const line of ip(['netns', 'list'], { allowFailure: true }).split('\n')) {
    const name = line.split(' ')[0] ?? '';
    if (!stale(name)) continue;
    killAllIn(name);
    ip(['netns', 'del', name], { allowFailure: true });
  }
  for (const line of ip(['-o', 'link', 'show'], { allowFailure: true }).split('\n')) {
    const name = /^\d+: ([^:@]+)/.exec(line)?.[1];
    if (name && stale(name)) ip(['link', 'del', name], { allowFailure: true });
  }
}

/** A /24 in 10.200.0.0-10.249.255.0 that no address or route here touches yet. */
function freeSubnet(): string {
  const taken = ip(['-4', '-o', 'addr', 'show']) + ip(['-4', 'route', 'show', 'table', 'all'], { allowFailure: true });
  for (let k = 0; k < 50 * 256; k++) {
    const a = 200 + ((process.pid + k) % 50);
    const b = (Math.floor(process.pid / 50) + k) % 256;
    const prefix = `10.${a}.${b}.`;
    if (!taken.includes(prefix)) return prefix;
  }
  throw new Error('no free 10.200-249.x.0/24 for the test hosts');
}

let made = 0;

/** A bridge and no hosts yet; call `destroy()` when done (afterAll), also when a test failed. */
export function createNetnsHosts(): NetnsHosts {
  const why = netnsSupport();
  if (!why.ok) throw new Error(`network namespaces unavailable: ${why.reason}`);
  removeLeftovers();
  const prefix = `${FAMILY}${process.pid.toString(36)}-${(made++).toString(36)}`;
  const bridge = `${prefix}br`;
  const subnet = freeSubnet();
  const hosts: NetnsHost[] = [];
  let destroyed = false;
  ip(['link', 'add', bridge, 'type', 'bridge']);
  try {
    ip(['addr', 'add', `${subnet}1/24`, 'dev', bridge]);
    ip(['link', 'set', bridge, 'up']);
  } catch (error) {
    ip(['link', 'del', bridge], { allowFailure: true });
    throw error;
  }
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    for (const host of hosts) killAllIn(host.namespace);
    // A namespace lives on while a socket of it lingers (TIME_WAIT): delete the pairs from this end.
    for (const host of hosts) ip(['link', 'del', host.link], { allowFailure: true });
    for (const host of hosts) ip(['netns', 'del', host.namespace], { allowFailure: true });
    ip(['link', 'del', bridge], { allowFailure: true });
  };
  return {
    bridgeAddress: `${subnet}1`,
    addHost() {
      if (destroyed) throw new Error('these hosts were destroyed');
      const n = hosts.length + 1;
      if (n > 200) throw new Error('at most 200 hosts');
      const namespace = `${prefix}h${n}`;
      const link = `${prefix}${n}a`;
      const inside = `${prefix}${n}b`;
      const address = `${subnet}${10 + n}`;
      ip(['netns', 'add', namespace]);
      const host: NetnsHost = { namespace, address, link, wrapper: ['ip', 'netns', 'exec', namespace] };
      hosts.push(host);
      ip(['link', 'add', link, 'type', 'veth', 'peer', 'name', inside, 'netns', namespace]);
      ip(['link', 'set', link, 'master', bridge, 'up']);
      ip(['-n', namespace, 'addr', 'add', `${address}/24`, 'dev', inside]);
      ip(['-n', namespace, 'link', 'set', inside, 'up']);
      ip(['-n', namespace, 'link', 'set', 'lo', 'up']);
      return host;
    },
    cut: (host) => void ip(['link', 'set', host.link, 'down']),
    restore: (host) => void ip(['link', 'set', host.link, 'up']),
    destroy,
  };
}
