// The record-normalization task's rules: one per field kind (dates, amounts, phone numbers, ...),
// each with how often records carry that field, the keywords by which a prompt states it (and a
// wrong version of it), the sentences a reflection LM writes for it, and how a raw value turns
// into the right output, the output with no rule, and the output under the wrong rule.
import type { Rng } from '../../gepa/core/rng.js';

export const RECORD_SEED_PROMPT = 'Normalize the customer record below. Return every field on its own line as `field: value`.';

export interface FieldValue {
  /** The value as the raw record holds it. */
  raw: string;
  /** The value normalized as the warehouse expects it. */
  right: string;
  /** What the model writes with the wrong rule stated. */
  wrong: string;
}

export interface RecordRule {
  field: string;
  /** Relative frequency of the field in records. */
  weight: number;
  /** Chance the model writes the right output with no rule stated (some conventions are common sense). */
  prior: number;
  /** Keyword groups that must all appear in a sentence stating the rule (any keyword of a group). */
  keywords: readonly (readonly string[])[];
  wrongKeywords: readonly (readonly string[])[];
  phrasings: readonly string[];
  wrongPhrasings: readonly string[];
  draw(rng: Rng): FieldValue;
}

const MONTHS = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'];
const pad = (n: number) => String(n).padStart(2, '0');
const FIRST = ['John', 'Maria', 'Wei', 'Amara', 'Lukas', 'Sofia', 'Kenji', 'Priya'];
const LAST = ['Smith', 'Garcia', 'Chen', 'Okafor', 'Becker', 'Rossi', 'Tanaka', 'Patel'];
const COUNTRIES: ReadonlyArray<readonly [string, string, string]> = [
  ['Germany', 'DE', 'DEU'], ['France', 'FR', 'FRA'], ['Japan', 'JP', 'JPN'], ['Brazil', 'BR', 'BRA'], ['India', 'IN', 'IND'], ['Canada', 'CA', 'CAN'],
];
const CURRENCIES: ReadonlyArray<readonly [string, string]> = [['€', 'EUR'], ['$', 'USD'], ['£', 'GBP'], ['¥', 'JPY']];

export const RECORD_RULES: readonly RecordRule[] = [
  {
    field: 'date', weight: 8, prior: 0.1,
    keywords: [['date'], ['yyyy-mm-dd', 'iso 8601', 'iso format']], wrongKeywords: [['date'], ['dd/mm']],
    phrasings: ['Write every date as YYYY-MM-DD.', 'Dates must be in ISO 8601 format (YYYY-MM-DD).'],
    wrongPhrasings: ['Write dates as DD/MM/YYYY.'],
    draw(rng) {
      const [y, m, d] = [2019 + rng.int(6), rng.pick(MONTHS), pad(13 + rng.int(15))];
      return { raw: `${m}/${d}/${y}`, right: `${y}-${m}-${d}`, wrong: `${d}/${m}/${y}` };
    },
  },
  {
    field: 'amount', weight: 6, prior: 0.15,
    keywords: [['amount'], ['dot for decimals', 'decimal point', 'no thousands separator']], wrongKeywords: [['amount'], ['comma for decimals', 'decimal comma']],
    phrasings: ['Write amounts as plain numbers with a decimal point and no thousands separators.', 'Amounts: digits and a dot for decimals, no thousands separator (1.234,50 becomes 1234.50).'],
    wrongPhrasings: ['Write amounts with a comma for decimals.'],
    draw(rng) {
      const units = 1000 + rng.int(9000);
      const cents = pad(rng.int(100));
      const thousands = `${Math.floor(units / 1000)}.${String(units % 1000).padStart(3, '0')}`;
      return { raw: `${thousands},${cents}`, right: `${units}.${cents}`, wrong: `${units},${cents}` };
    },
  },
  {
    field: 'currency', weight: 5, prior: 0.2,
    keywords: [['currenc'], ['iso', 'three-letter', 'three letter']], wrongKeywords: [['currenc'], ['as their symbol', 'currency symbol']],
    phrasings: ['Give currencies as three-letter ISO codes (EUR, USD, GBP).', 'Currency: the ISO 4217 three-letter code, never a symbol.'],
    wrongPhrasings: ['Write currencies as their symbol (€, $, £).'],
    draw(rng) {
      const [symbol, code] = rng.pick(CURRENCIES);
      return { raw: symbol, right: code, wrong: symbol };
    },
  },
  {
    field: 'phone', weight: 4, prior: 0.05,
    keywords: [['phone'], ['e.164', 'country code']], wrongKeywords: [['phone'], ['only the digits', 'digits only, without']],
    phrasings: ['Write phone numbers in E.164 form: a plus sign, the country code, then digits only.', 'Phone numbers: +, country code and digits, no spaces or brackets (E.164).'],
    wrongPhrasings: ['Reduce phone numbers to only the digits.'],
    draw(rng) {
      const [a, b, c] = [200 + rng.int(700), 200 + rng.int(700), 1000 + rng.int(9000)];
      return { raw: `(${a}) ${b}-${c}`, right: `+1${a}${b}${c}`, wrong: `${a}${b}${c}` };
    },
  },
  {
    field: 'name', weight: 4, prior: 0.2,
    keywords: [['name'], ['first last', 'first name first', 'given name first']], wrongKeywords: [['name'], ['upper case', 'uppercase', 'capital letters']],
    phrasings: ["Write names as 'First Last', given name first, even when the input says 'LAST, First'.", 'Names: given name first, then family name, in normal capitalization (First Last).'],
    wrongPhrasings: ['Write names in upper case.'],
    draw(rng) {
      const [first, last] = [rng.pick(FIRST), rng.pick(LAST)];
      return { raw: `${last.toUpperCase()}, ${first}`, right: `${first} ${last}`, wrong: `${first.toUpperCase()} ${last.toUpperCase()}` };
    },
  },
  {
    field: 'country', weight: 3, prior: 0.1,
    keywords: [['countr'], ['two-letter', 'two letter', 'alpha-2']], wrongKeywords: [['countr'], ['three-letter', 'three letter', 'alpha-3']],
    phrasings: ['Give countries as two-letter ISO codes (DE, FR, US).', 'Country: the ISO 3166 alpha-2 code.'],
    wrongPhrasings: ['Give countries as three-letter codes (DEU, FRA).'],
    draw(rng) {
      const [name, two, three] = rng.pick(COUNTRIES);
      return { raw: name, right: two, wrong: three };
    },
  },
  {
    field: 'email', weight: 3, prior: 0.35,
    keywords: [['email', 'e-mail'], ['lower']], wrongKeywords: [['email', 'e-mail'], ['exactly as given', 'unchanged']],
    phrasings: ['Lower-case email addresses.', 'Email addresses are written in lower case.'],
    wrongPhrasings: ['Keep email addresses exactly as given.'],
    draw(rng) {
      const [first, last] = [rng.pick(FIRST), rng.pick(LAST)];
      const raw = `${first}.${last}@Example.COM`;
      return { raw, right: raw.toLowerCase(), wrong: raw };
    },
  },
  {
    field: 'missing', weight: 2, prior: 0.1,
    keywords: [['missing', 'unknown', 'n/a'], ['null']], wrongKeywords: [['missing', 'unknown'], ['values empty', 'leave it empty', 'leave them empty']],
    phrasings: ['Write a missing value as null, never as an empty string or N/A.', 'When a value is missing or N/A, output null.'],
    wrongPhrasings: ['Leave missing values empty.'],
    draw(rng) {
      return { raw: rng.pick(['N/A', 'n/a', '-', 'unknown']), right: 'null', wrong: '' };
    },
  },
  {
    field: 'discount', weight: 2, prior: 0.1,
    keywords: [['percent', '%'], ['fraction', 'decimal']], wrongKeywords: [['percent', '%'], ['whole number']],
    phrasings: ['Write percentages as fractions (12% is 0.12).', 'Percentages become decimals: 12% is written 0.12.'],
    wrongPhrasings: ['Write percentages as whole numbers without the sign.'],
    draw(rng) {
      const p = 5 + rng.int(40);
      return { raw: `${p}%`, right: (p / 100).toFixed(2), wrong: String(p) };
    },
  },
  {
    field: 'time', weight: 1.5, prior: 0.15,
    keywords: [['time'], ['24-hour', '24 hour', 'hh:mm']], wrongKeywords: [['time'], ['12-hour', 'am/pm']],
    phrasings: ['Write times in 24-hour HH:MM.', 'Times use the 24-hour clock (3:30 pm is 15:30).'],
    wrongPhrasings: ['Write times in 12-hour form with am/pm.'],
    draw(rng) {
      const [h, m] = [1 + rng.int(11), pad(rng.int(60))];
      return { raw: `${h}:${m} pm`, right: `${h + 12}:${m}`, wrong: `${h}:${m} pm` };
    },
  },
  {
    field: 'weight', weight: 1, prior: 0.05,
    keywords: [['weight'], ['kilogram', 'kg']], wrongKeywords: [['weight'], ['in pounds']],
    phrasings: ['Give weights in kilograms with two decimals (1 lb = 0.4536 kg).', 'Weights: convert to kg, two decimals.'],
    wrongPhrasings: ['Give weights in pounds.'],
    draw(rng) {
      const lb = 2 + rng.int(60);
      return { raw: `${lb} lb`, right: (lb * 0.4536).toFixed(2), wrong: `${lb} lb` };
    },
  },
  {
    field: 'subscribed', weight: 1, prior: 0.3,
    keywords: [['yes/no', 'yes or no', 'flag'], ['true']], wrongKeywords: [['yes/no', 'yes or no', 'flag'], ['1 or 0']],
    phrasings: ['Write yes/no flags as true or false.', 'Flags (Y/N, yes/no) become true or false.'],
    wrongPhrasings: ['Write yes/no flags as 1 or 0.'],
    draw(rng) {
      const yes = rng.next() < 0.5;
      return { raw: yes ? 'Y' : 'N', right: String(yes), wrong: yes ? '1' : '0' };
    },
  },
];

export const ruleOfField = (field: string): RecordRule | undefined => RECORD_RULES.find((r) => r.field === field);

/** Sentences that sound helpful and state no rule. */
export const VAGUE_RECORD_SENTENCES = [
  'Be careful and consistent with every field.',
  'Normalize each value to a clean, standard format.',
  'Double-check the output before answering.',
  'Follow common data-cleaning conventions.',
];
