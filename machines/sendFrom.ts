// Sending from inside a promise or a callback actor with the sender recorded. XState's public
// `ref.send(event)` relays with no source, so inspection (the report's actor table, inspect.jsonl)
// cannot say who sent the evaluator's replies or a proposer's reflection requests. The system's
// relay is the path `sendTo` and `sendBack` take; `ref.send` is that relay without a source, so
// this changes nothing but the recorded sender, and falls back to `ref.send` if XState drops it.
import type { ActorSystem, AnyActorRef, EventObject } from 'xstate';

type Relay = (source: AnyActorRef | undefined, target: unknown, event: EventObject) => void;

/** Sends `event` to `target` as `source`; the event is checked against what `target` accepts. */
// Any system: the relay is the same whatever the system knows about its actors.
export function sendFrom<E extends EventObject>(system: ActorSystem<any>, source: AnyActorRef, target: { send(event: E): void }, event: E): void {
  const relay = (system as unknown as { _relay?: Relay })._relay;
  if (typeof relay === 'function') relay(source, target, event);
  else target.send(event);
}
