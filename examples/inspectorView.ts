// What examples/inspector.ts sends the Stately inspector of each actor's context and of each
// event. Contexts hold every example, candidate and function, and events carry actor refs: the
// inspector gets their scalar fields (numbers, short strings) and the length of each array; the
// optimizer's run state (a RunState held by reference) is shown as its summary: the step, the
// pool's size and best, the proposals in flight, the calls spent and reserved, the stop reason.
import type { AnyEventObject, MachineContext } from 'xstate';

const scalars = (value: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(value).flatMap(([k, v]): Array<[string, unknown]> => {
      if (Array.isArray(v)) return [[k, `[${v.length} items]`]];
      if (typeof v === 'string') return [[k, v.length > 80 ? `${v.slice(0, 80)}...` : v]];
      return v === null || typeof v === 'number' || typeof v === 'boolean' ? [[k, v]] : [];
    }),
  );

/** Something with a summary (the optimizer's run state). */
const summaryOf = (value: unknown): unknown => (value !== null && typeof value === 'object' && typeof (value as { summary?: unknown }).summary === 'function' ? (value as { summary: () => unknown }).summary() : undefined);

/** A context as the inspector shows it: its scalars, and the run's summary. Callback and promise actors have no context. */
export function sanitizeContext(context: MachineContext): MachineContext {
  if (!context) return context;
  const summary = summaryOf((context as { run?: unknown }).run);
  return summary === undefined ? scalars(context) : { ...scalars(context), run: summary };
}

export const sanitizeEvent = (event: AnyEventObject): AnyEventObject => scalars(event) as AnyEventObject;
