// What a user's function returned or threw, said as it happened: "NaN", "Infinity", "undefined",
// "a string ("0.5")", "{"score":NaN}", "TypeError: x is not a function". JSON alone would say
// "null" for NaN and Infinity (JSON.stringify turns them into null), and a bare message would
// hide that a TypeError was thrown; failure messages and refusals use these instead.

const NON_FINITE = '@@gepa-actors-non-finite@@';

/** JSON with NaN, Infinity and -Infinity as themselves (not null), undefined fields shown as undefined. */
function json(value: unknown): string | undefined {
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'number' && !Number.isFinite(v)) return `${NON_FINITE}${v}`;
    if (typeof v === 'bigint') return `${NON_FINITE}${v}n`;
    return v;
  });
  return text?.replace(new RegExp(`"${NON_FINITE}([^"]*)"`, 'g'), '$1');
}

/** A returned value, named by what it is: a number as itself (NaN too), `undefined`, `a string ("...")`, an object as JSON; cut at `max` characters. */
export function describeValue(value: unknown, max = 80): string {
  const cut = (text: string) => (text.length > max ? `${text.slice(0, max - 3)}...` : text);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === undefined || value === null) return String(value);
  if (typeof value === 'string') return `a string (${cut(JSON.stringify(value))})`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return String(value);
  if (value instanceof Promise) return 'a Promise';
  return cut(json(value) ?? String(value));
}

/** What was thrown: an Error as `Name: message` ("TypeError: ...", "Error: ..."), anything else as describeValue says it. */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return `${error.name || 'Error'}: ${error.message}`;
  return describeValue(error);
}
