// How the demo shop's answers look under each convention: money, dates, times, percentages,
// counts. Pure string formatting shared by the dataset (expected answers) and the simulated
// task model (what it actually writes).

const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
];
export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_MS = 86_400_000;

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** "60000" -> "60,000" when `comma`. */
export function groupDigits(integer: number, comma: boolean): string {
  const digits = String(integer);
  if (!comma || digits.length <= 3) return digits;
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return out;
}

/** Shortest decimal form with at most `places` decimals: 8.400 -> "8.4". */
export function trimDecimal(value: number, places: number): string {
  return String(Number(value.toFixed(places)));
}

export function formatMoney(cents: number, option: string, comma: boolean): string {
  if (option === 'whole') return `$${groupDigits(Math.floor((cents + 50) / 100), comma)}`;
  const dollars = Math.floor(cents / 100);
  const rest = cents % 100;
  if (option === 'plain') {
    if (rest === 0) return groupDigits(dollars, comma);
    return `${groupDigits(dollars, comma)}.${rest % 10 === 0 ? rest / 10 : pad2(rest)}`;
  }
  return `$${groupDigits(dollars, comma)}.${pad2(rest)}`;
}

/** `day` counts days since 1970-01-01 (UTC). */
export function formatDate(day: number, option: string): string {
  const d = new Date(day * DAY_MS);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + 1;
  const dd = d.getUTCDate();
  switch (option) {
    case 'iso':
      return `${y}-${pad2(m)}-${pad2(dd)}`;
    case 'dayFirst':
      return `${pad2(dd)}/${pad2(m)}/${y}`;
    case 'us':
      return `${pad2(m)}/${pad2(dd)}/${y}`;
    default:
      return `${MONTHS[m - 1]} ${dd}, ${y}`;
  }
}

export function weekdayOf(day: number): number {
  return (day + 4) % 7; // 1970-01-01 was a Thursday
}

export function dayOf(year: number, month: number, date: number): number {
  return Date.UTC(year, month - 1, date) / DAY_MS;
}

/** `minutes` since midnight, same day. */
export function formatTime(minutes: number, option: string): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (option === '24h') return `${pad2(h)}:${pad2(m)}`;
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${h12}:${pad2(m)} ${h < 12 ? 'AM' : 'PM'}`;
}

/** A plausible arithmetic slip: one of the last two digits of the answer comes out wrong. */
export function slipDigit(answer: string, draw: number, offset: number): string {
  const positions: number[] = [];
  for (let i = answer.length - 1; i >= 0 && positions.length < 2; i--) {
    const c = answer.charCodeAt(i);
    if (c >= 48 && c <= 57) positions.push(i);
  }
  if (positions.length === 0) return `${answer} (approximately)`;
  const at = positions[draw % positions.length] as number;
  const digit = answer.charCodeAt(at) - 48;
  const wrong = (digit + 1 + (offset % 9)) % 10;
  return answer.slice(0, at) + String(wrong) + answer.slice(at + 1);
}
