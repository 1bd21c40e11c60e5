// Inspection events recorded for inspect.jsonl and the report's actor tree: actor ids, parents,
// system ids, event types and state values of a small real machine, nothing of its context,
// and a snapshot only when the state value changes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SimulatedClock, createActor, fromCallback, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { buildActorTree } from '../src/report/actorTree.js';
import { createInspectionLog, safeStateValue } from '../src/report/inspectionLog.js';

describe('inspection log', () => {
  it('records actors, events and state changes, never contexts', async () => {
    const child = fromCallback(({ receive }) => {
      receive(() => {});
    });
    const machine = setup({ actors: { child } }).createMachine({
      id: 'parent',
      context: { secret: 'do not log me' },
      invoke: { src: 'child', id: 'worker', systemId: 'pool' },
      initial: 'idle',
      states: { idle: { on: { go: 'busy', ping: {} } }, busy: { initial: 'a', states: { a: {} }, on: { stop: 'done' } }, done: { type: 'final' } },
    });
    const log = createInspectionLog({ clock: new SimulatedClock() });
    const actor = createActor(machine, { inspect: log.inspect });
    actor.start();
    actor.send({ type: 'ping' }); // no state change: no snapshot record
    actor.send({ type: 'go' });
    actor.send({ type: 'stop' });
    await log.close();

    const records = log.records;
    expect(JSON.stringify(records)).not.toContain('do not log me');
    const actors = records.filter((r) => r.kind === 'actor');
    expect(actors).toEqual([
      { kind: 'actor', seq: 1, atMs: 0, actor: 'x:0', id: 'x:0', logic: 'parent' },
      { kind: 'actor', seq: 2, atMs: 0, actor: 'x:1', id: 'worker', parent: 'x:0', systemId: 'pool', logic: 'child' },
    ]);
    const parentSnapshots = records.filter((r) => r.kind === 'snapshot' && r.actor === 'x:0').map((r) => (r.kind === 'snapshot' ? [r.event, r.value, r.status] : []));
    expect(parentSnapshots).toEqual([
      ['xstate.init', 'idle', 'active'],
      ['go', { busy: 'a' }, 'active'],
      ['stop', 'done', 'done'],
    ]);
    expect(records.filter((r) => r.kind === 'event' && r.actor === 'x:0').map((r) => (r.kind === 'event' ? r.event : ''))).toEqual(['xstate.init', 'ping', 'go', 'stop']);
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));

    const tree = buildActorTree(records);
    expect(tree.roots).toHaveLength(1);
    expect(tree.roots[0]?.logic).toBe('parent');
    expect(tree.roots[0]?.lastValue).toBe('done');
    expect(tree.roots[0]?.children.map((c) => [c.logic, c.systemId])).toEqual([['child', 'pool']]);
  });

  it('keeps only strings in state values', () => {
    expect(safeStateValue({ a: 'b', c: { d: 'e' }, f: 3, g: null })).toEqual({ a: 'b', c: { d: 'e' } });
    expect(safeStateValue(42)).toBeUndefined();
  });

  it("reads no private XState field: nothing in src/ or machines/ touches an underscored member (an actor's _parent, _relay, _snapshot...)", () => {
    const root = join(import.meta.dirname, '..');
    const modules = ['src', 'machines'].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => join(dir, file)),
    );
    expect(modules.length).toBeGreaterThan(100);
    const reads = modules.flatMap((file) => [...readFileSync(join(root, file), 'utf8').matchAll(/\??\._[A-Za-z]\w*/g)].map((m) => `${file}: ${m[0]}`));
    expect(reads).toEqual([]);
  });
});
