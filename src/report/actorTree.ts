// The actor tree of a run, rebuilt from its inspection records: who spawned whom (optimizer ->
// evaluator, stop signals, a proposer per proposal that went on past its parent's evaluation), each actor's last state, and how many
// messages of each type went from one kind of actor to another (the machines/README diagram,
// counted). Rendered as a nested list; large groups (proposers) are folded.
import { escapeHtml } from './htmlEscape.js';
import type { InspectionRecord, StateValue } from './inspectionLog.js';

export interface ActorNode {
  session: string;
  id: string;
  /** 'optimizer', 'evaluator', 'proposer', ... */
  logic: string;
  systemId?: string;
  children: ActorNode[];
  /** Events this actor received. */
  received: number;
  lastValue?: StateValue;
  lastStatus?: string;
}

export interface MessageCount {
  from: string;
  to: string;
  event: string;
  count: number;
}

export interface ActorTree {
  roots: ActorNode[];
  actors: number;
  messages: MessageCount[];
}

/**
 * XState records a sender only for what a machine sends by its actions and what a child sends
 * its parent; a public `ref.send` has none. That is the caller starting the optimizer, and a
 * proposer's note to itself, from inside a promise, that its reflective dataset is built
 * (machines/README.md).
 */
const UNKNOWN_SENDER = '(no sender recorded)';

/**
 * The actor tree folded record by record (the workbench adds records as a run makes them);
 * `tree()` draws it as it stands. buildActorTree folds a whole log at once.
 */
export class ActorTreeBuilder {
  private readonly nodes = new Map<string, ActorNode>();
  private readonly parents = new Map<string, string>();
  private readonly counts = new Map<string, MessageCount>();

  private node(session: string): ActorNode {
    let n = this.nodes.get(session);
    if (!n) {
      n = { session, id: session, logic: 'actor', children: [], received: 0 };
      this.nodes.set(session, n);
    }
    return n;
  }

  add(r: InspectionRecord): void {
    const n = this.node(r.actor);
    if (r.kind === 'actor') {
      n.id = r.id;
      n.logic = r.logic ?? r.id;
      if (r.systemId) n.systemId = r.systemId;
      if (r.parent) this.parents.set(r.actor, r.parent);
    } else if (r.kind === 'event') {
      n.received++;
      const from = r.source ? r.source : UNKNOWN_SENDER;
      // One row for all 'xstate.done.actor.<id>' events, not one per child.
      const event = r.event.replace(/^(xstate\.(?:done|error)\.actor)\..*$/, '$1.*');
      const key = JSON.stringify([from, r.actor, event]);
      const c = this.counts.get(key) ?? { from, to: r.actor, event, count: 0 };
      c.count++;
      this.counts.set(key, c);
    } else {
      if (r.value !== undefined) n.lastValue = r.value;
      if (r.status) n.lastStatus = r.status;
    }
  }

  /** The tree as it stands: fresh nodes (the builder's are not shared), message counts by kind of actor. */
  tree(): ActorTree {
    const copies = new Map<string, ActorNode>([...this.nodes].map(([session, n]) => [session, { ...n, children: [] }]));
    const roots: ActorNode[] = [];
    for (const n of copies.values()) {
      const parent = this.parents.get(n.session);
      const p = parent ? copies.get(parent) : undefined;
      if (p) p.children.push(n);
      else roots.push(n);
    }
    // Message counts are by kind of actor, not by instance: 40 proposers send the same messages.
    const logicOf = (session: string) => this.nodes.get(session)?.logic ?? session;
    const byKind = new Map<string, MessageCount>();
    for (const c of this.counts.values()) {
      const from = c.from === UNKNOWN_SENDER ? c.from : logicOf(c.from);
      const to = logicOf(c.to);
      const key = JSON.stringify([from, to, c.event]);
      const k = byKind.get(key) ?? { from, to, event: c.event, count: 0 };
      k.count += c.count;
      byKind.set(key, k);
    }
    const messages = [...byKind.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to) || b.count - a.count);
    return { roots, actors: copies.size, messages };
  }
}

export function buildActorTree(records: readonly InspectionRecord[]): ActorTree {
  const builder = new ActorTreeBuilder();
  for (const r of records) builder.add(r);
  return builder.tree();
}

export function formatStateValue(value: StateValue | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([k, v]) => (typeof v === 'string' ? `${k}.${v}` : `${k}.{${formatStateValue(v)}}`))
    .join(', ');
}

const SHOWN_PER_GROUP = 6;

function renderNode(n: ActorNode): string {
  const state = formatStateValue(n.lastValue);
  const status = n.lastStatus && n.lastStatus !== 'active' ? n.lastStatus : '';
  const detail = [state && `state <code>${escapeHtml(state)}</code>`, status && escapeHtml(status), `${n.received} events received`]
    .filter(Boolean)
    .join(' · ');
  // A proposer's id is a reused name (machines/proposerActorIds.ts): its systemId names its proposal.
  const name = n.logic === 'proposer' && n.systemId !== undefined ? n.systemId : n.id;
  const label = name !== n.logic ? ` <span class="muted">${escapeHtml(name)}</span>` : '';
  return `<li class="actor-node" data-logic="${escapeHtml(n.logic)}"><span class="actor-logic">${escapeHtml(n.logic)}</span>${label} <span class="muted">${detail}</span>${renderChildren(n.children)}</li>`;
}

function renderChildren(children: readonly ActorNode[]): string {
  if (children.length === 0) return '';
  const groups = new Map<string, ActorNode[]>();
  for (const c of children) groups.set(c.logic, [...(groups.get(c.logic) ?? []), c]);
  const items = [...groups.entries()].map(([logic, members]) => {
    if (members.length <= SHOWN_PER_GROUP) return members.map(renderNode).join('');
    const shown = members.slice(0, SHOWN_PER_GROUP).map(renderNode).join('');
    const rest = members.slice(SHOWN_PER_GROUP).map(renderNode).join('');
    return `${shown}<li><details><summary>${members.length - SHOWN_PER_GROUP} more ${escapeHtml(logic)} actors (${members.length} in all)</summary><ul>${rest}</ul></details></li>`;
  });
  return `<ul>${items.join('')}</ul>`;
}

export function renderActorTree(tree: ActorTree): string {
  const list = `<ul class="actor-tree">${tree.roots.map(renderNode).join('')}</ul>`;
  const rows = tree.messages
    .map((m) => `<tr><td>${escapeHtml(m.from)}</td><td>${escapeHtml(m.to)}</td><td><code>${escapeHtml(m.event)}</code></td><td class="num">${m.count}</td></tr>`)
    .join('');
  const table = `<table class="messages"><thead><tr><th>from</th><th>to</th><th>event</th><th class="num">count</th></tr></thead><tbody>${rows}</tbody></table>`;
  return `<p class="muted">${tree.actors} actors. Messages are counted by kind of actor, from sender to receiver; &quot;no sender recorded&quot; is the caller (it starts the optimizer) or a proposer's note to itself from inside a promise.</p><div class="two-col">${list}<div class="scroll">${table}</div></div>`;
}
