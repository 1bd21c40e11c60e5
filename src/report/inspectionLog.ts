// XState inspection events as small JSON records: which actor (session id, id, parent, system
// id, logic), which event type went from whom to whom, and each machine's state value when it
// changes. Never whole events or contexts: those hold candidates, examples and actor refs.
// Records are kept in memory for the report and, when a path is given, appended to a JSONL file.
import { createJsonLinesFile } from './jsonLinesFile.js';
import type { Clock } from '../clock.js';

/** One line of inspect.jsonl: an actor started, an event was received, or a machine's state changed. */
export type InspectionRecord =
  | {
      /** An actor started. */
      kind: 'actor';
      /** Order of the record in the run, from 1. */
      seq: number;
      /** When, in ms since the log was created (the run's clock). */
      atMs: number;
      /** The actor's session id. */
      actor: string;
      /** Its id (a proposer's is a reused name, `proposer-<n>`: its systemId is its proposal's id). */
      id: string;
      /** The session id of the actor that spawned it. */
      parent?: string;
      /** Its system id ('evaluator'; a proposer's: its proposal's id). */
      systemId?: string;
      /** Its logic's name ('optimizer', 'proposer', 'evaluator'). */
      logic?: string;
    }
  | {
      /** An event reached `actor`. */
      kind: 'event';
      /** Order of the record in the run, from 1. */
      seq: number;
      /** When, in ms since the log was created (the run's clock). */
      atMs: number;
      /** The actor's session id. */
      actor: string;
      /** The session id of the actor that sent it, when known. */
      source?: string;
      /** The event's type. */
      event: string;
    }
  | {
      /** A machine's state changed. */
      kind: 'snapshot';
      /** Order of the record in the run, from 1. */
      seq: number;
      /** When, in ms since the log was created (the run's clock). */
      atMs: number;
      /** The actor's session id. */
      actor: string;
      /** The type of the event that changed it. */
      event: string;
      /** The actor's status ('active', 'done', ...). */
      status?: string;
      /** The new state value. */
      value?: StateValue;
    };

/** XState's state value: a state name, or parent state -> child value. */
export type StateValue = string | { [state: string]: StateValue };

/**
 * What the serializer reads from an actor ref, all public XState (no private field): its ids, its
 * logic, and the options it was created with (XState's ActorOptions: an invoked or spawned
 * actor's `parent`; '@xstate.actor' is sent before the actor sets systemId, which they hold too).
 * All optional, so any ActorRefLike will do.
 */
interface ActorRefShape {
  sessionId?: unknown;
  id?: unknown;
  systemId?: unknown;
  options?: { systemId?: unknown; parent?: { sessionId?: unknown } };
  src?: unknown;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The logic's name: a provided actor's key ('proposer'), or a machine's id ('optimizer'). */
function logicName(ref: ActorRefShape): string | undefined {
  if (typeof ref.src === 'string') return ref.src;
  const logic = ref.src as { id?: unknown; config?: { id?: unknown } } | undefined;
  return text(logic?.id) ?? text(logic?.config?.id);
}

/** Keeps only strings and nested objects of strings: a state value, nothing else. */
export function safeStateValue(value: unknown, depth = 0): StateValue | undefined {
  if (typeof value === 'string') return value;
  if (depth > 8 || value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
    const safe = safeStateValue(v, depth + 1);
    return safe === undefined ? [] : [[k, safe] as const];
  });
  return Object.fromEntries(entries);
}

/** Inspection records of a run (createInspectionLog), kept in memory and optionally written to a file. */
export interface InspectionLog {
  /** Pass as OptimizeConfig.inspect (XState's createActor inspect option). */
  inspect: (inspectionEvent: unknown) => void;
  /** The records so far. */
  readonly records: readonly InspectionRecord[];
  /** Flushes and closes the file, if any. */
  close(): Promise<void>;
}

/**
 * Serializes one inspection event, or undefined for the kinds not kept (microsteps, actions,
 * transitions) and for snapshots that did not change the actor's state value or status.
 */
export function createInspectionSerializer(clock: Clock): (event: unknown) => InspectionRecord | undefined {
  const startedAt = clock.now();
  const lastState = new Map<string, string>();
  let seq = 0;
  return (raw) => {
    const event = raw as { type?: unknown; actorRef?: ActorRefShape; sourceRef?: ActorRefShape; event?: { type?: unknown }; snapshot?: { status?: unknown; value?: unknown } };
    const actor = text(event.actorRef?.sessionId);
    if (!actor || !event.actorRef) return undefined;
    const base = { seq: seq + 1, atMs: Math.round((clock.now() - startedAt) * 10) / 10, actor };
    let record: InspectionRecord | undefined;
    switch (event.type) {
      case '@xstate.actor': {
        const ref = event.actorRef;
        const parent = text(ref.options?.parent?.sessionId);
        const systemId = text(ref.systemId) ?? text(ref.options?.systemId);
        const logic = logicName(ref);
        record = { kind: 'actor', ...base, id: text(ref.id) ?? actor, ...(parent ? { parent } : {}), ...(systemId ? { systemId } : {}), ...(logic ? { logic } : {}) };
        break;
      }
      case '@xstate.event': {
        const source = text(event.sourceRef?.sessionId);
        record = { kind: 'event', ...base, event: text(event.event?.type) ?? '(unknown)', ...(source ? { source } : {}) };
        break;
      }
      case '@xstate.snapshot': {
        const status = text(event.snapshot?.status);
        const value = safeStateValue(event.snapshot?.value);
        const key = JSON.stringify([status, value]);
        if (lastState.get(actor) === key) return undefined;
        lastState.set(actor, key);
        record = {
          kind: 'snapshot',
          ...base,
          event: text(event.event?.type) ?? '(unknown)',
          ...(status ? { status } : {}),
          ...(value !== undefined ? { value } : {}),
        };
        break;
      }
      default:
        return undefined;
    }
    seq++;
    return record;
  };
}

/** Collects inspection records; with `path`, also writes them as JSON lines. */
export function createInspectionLog(options: { clock: Clock; path?: string }): InspectionLog {
  const serialize = createInspectionSerializer(options.clock);
  const records: InspectionRecord[] = [];
  const file = options.path ? createJsonLinesFile(options.path) : undefined;
  return {
    records,
    inspect(event) {
      const record = serialize(event);
      if (!record) return;
      records.push(record);
      file?.write(record);
    },
    close: async () => file?.close(),
  };
}

/** Parses an inspect.jsonl file's text (blank lines skipped). */
export function parseInspectionLog(text: string): InspectionRecord[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as InspectionRecord);
}
