// The house conventions of the demo shop's support desk: which answer formats exist per "slot"
// (money, dates, times...), how likely the simulated model is to hit each one by habit when the
// prompt says nothing, the keywords that make a prompt sentence state one, and the feedback
// reason given when an answer misses the expected one. One table, read by both simulated models.

export type Slot =
  | 'money'
  | 'containers'
  | 'coupon'
  | 'weight'
  | 'time'
  | 'shipping'
  | 'date'
  | 'percent'
  | 'thousands';

export interface ConventionOption {
  slot: Slot;
  option: string;
  /** Probability that the model writes this form by habit when no instruction covers the slot. */
  habit: number;
  /**
   * A sentence states this option when it contains a keyword of every group (lower case). The
   * position of the last group's keyword breaks ties between options of one slot, so that
   * "use X, not Y" means X.
   */
  keywords: ReadonlyArray<readonly string[]>;
  /** What the trace says the model did. */
  describe: string;
  /** Why the expected form is right; only options some example expects have one. */
  reason?: string;
}

const MONEY_WORDS = ['money', 'price', 'amount', 'cost', 'dollar', 'total', 'quote', '$'];
const CONTAINER_WORDS = ['box', 'pack', 'container', 'crate', 'carton', 'tray', 'how many'];
const COUPON_WORDS = ['coupon', 'discount'];
const WEIGHT_WORDS = ['weight', 'weigh', 'mass', 'kg', 'kilogram'];
const TIME_WORDS = ['time', 'clock', 'hh:mm'];
const SHIPPING_WORDS = ['shipping', 'delivery', 'deliver', 'ship', 'transit', 'arriv'];
const DATE_WORDS = ['date'];
const PERCENT_WORDS = ['percent', 'rate', 'ratio', 'share', 'proportion'];
const NUMBER_WORDS = ['number', 'thousand', 'large', 'count', 'figure', 'digit', 'amount'];

export const CONVENTIONS: readonly ConventionOption[] = [
  {
    slot: 'money', option: 'cents', habit: 0.4, describe: 'dollars and cents',
    keywords: [MONEY_WORDS, ['two decimal', '2 decimal', 'cents', 'two digits after', '.00']],
    reason: 'amounts of money are written with a dollar sign and two decimals',
  },
  {
    slot: 'money', option: 'whole', habit: 0.15, describe: 'whole dollars',
    keywords: [MONEY_WORDS, ['whole dollar', 'nearest dollar', 'no cents', 'without cents', 'round to the dollar']],
    reason: 'wholesale quotes are rounded to the nearest whole dollar',
  },
  {
    slot: 'money', option: 'plain', habit: 0.45, describe: 'a bare number without a currency sign',
    keywords: [MONEY_WORDS, ['plain number', 'without a currency', 'no currency', 'without the dollar', 'no dollar sign']],
  },
  {
    slot: 'containers', option: 'ceil', habit: 0.45, describe: 'the count rounded up to whole containers',
    keywords: [CONTAINER_WORDS, ['round up', 'rounded up', 'rounding up', 'next whole', 'ceiling', 'always up']],
    reason: 'a partly filled container still has to be shipped, so round the number of containers up',
  },
  {
    slot: 'containers', option: 'floor', habit: 0.3, describe: 'only the completely full containers',
    keywords: [CONTAINER_WORDS, ['round down', 'rounded down', 'rounding down', 'full box', 'full container', 'drop the remainder']],
  },
  {
    slot: 'containers', option: 'decimal', habit: 0.25, describe: 'the exact quotient with decimals',
    keywords: [CONTAINER_WORDS, ['fraction of a', 'exact decimal', 'partial box', 'do not round']],
  },
  {
    slot: 'coupon', option: 'before', habit: 0.4, describe: 'the coupon taken off before tax',
    keywords: [COUPON_WORDS, ['before tax', 'before sales tax', 'before adding', 'before the tax', 'then add tax', 'then add sales tax', 'pre-tax', 'after the coupon', 'after the discount']],
    reason: 'the coupon comes off the subtotal before sales tax is added',
  },
  {
    slot: 'coupon', option: 'after', habit: 0.6, describe: 'tax added first, coupon subtracted last',
    keywords: [COUPON_WORDS, ['after tax', 'after sales tax', 'tax first', 'before subtracting', 'before the coupon', 'before the discount', 'from the taxed']],
  },
  {
    slot: 'weight', option: 'kg', habit: 0.4, describe: 'kilograms',
    keywords: [WEIGHT_WORDS, ['kilogram', 'kg']],
    reason: 'shipping weights are given in kilograms',
  },
  {
    slot: 'weight', option: 'grams', habit: 0.6, describe: 'grams',
    keywords: [WEIGHT_WORDS, ['in grams', 'in g ']],
  },
  {
    slot: 'time', option: '24h', habit: 0.35, describe: 'the 24-hour clock',
    keywords: [TIME_WORDS, ['24-hour', '24 hour', '24h', 'military', 'hh:mm']],
    reason: 'times are written on the 24-hour clock (HH:MM)',
  },
  {
    slot: 'time', option: '12h', habit: 0.65, describe: 'the 12-hour clock with AM/PM',
    keywords: [TIME_WORDS, ['am/pm', '12-hour', '12 hour', 'a.m.', 'am or pm']],
  },
  {
    slot: 'shipping', option: 'business', habit: 0.35, describe: 'business days only',
    keywords: [SHIPPING_WORDS, ['business day', 'working day', 'weekday', 'skip weekend', 'weekends do not', "weekends don't", 'exclud', 'monday to friday', 'mon-fri', 'monday-friday']],
    reason: 'shipping takes business days; weekends do not count',
  },
  {
    slot: 'shipping', option: 'calendar', habit: 0.65, describe: 'calendar days including weekends',
    keywords: [SHIPPING_WORDS, ['calendar day', 'including weekend', 'every day counts', 'weekends count']],
  },
  {
    slot: 'date', option: 'iso', habit: 0.3, describe: 'YYYY-MM-DD dates',
    keywords: [DATE_WORDS, ['yyyy-mm-dd', 'iso', 'year-month-day', 'year first']],
    reason: 'dates are written as YYYY-MM-DD',
  },
  {
    slot: 'date', option: 'dayFirst', habit: 0.1, describe: 'DD/MM/YYYY dates',
    keywords: [DATE_WORDS, ['dd/mm/yyyy', 'day first', 'day-first', 'day/month/year', 'european']],
    reason: 'tickets from the Lyon store write dates day first, as DD/MM/YYYY',
  },
  {
    slot: 'date', option: 'us', habit: 0.1, describe: 'MM/DD/YYYY dates',
    keywords: [DATE_WORDS, ['mm/dd/yyyy', 'month first', 'month/day/year']],
  },
  {
    slot: 'date', option: 'long', habit: 0.5, describe: 'dates written out in words',
    keywords: [DATE_WORDS, ['in words', 'month name', 'spelled out', 'written out', 'like march']],
  },
  {
    slot: 'percent', option: 'sign', habit: 0.5, describe: 'a percentage with a % sign',
    keywords: [PERCENT_WORDS, ['%', 'percentage', 'as a percent', 'percent sign']],
    reason: 'rates are given as percentages with a % sign',
  },
  {
    slot: 'percent', option: 'fraction', habit: 0.5, describe: 'a decimal fraction',
    keywords: [PERCENT_WORDS, ['as a decimal', 'as decimals', 'as a fraction', 'between 0 and 1']],
  },
  {
    slot: 'thousands', option: 'comma', habit: 0.45, describe: 'comma thousands separators',
    keywords: [NUMBER_WORDS, ['comma', 'thousands separator', '1,000']],
    reason: 'large numbers use commas as thousands separators',
  },
  {
    slot: 'thousands', option: 'none', habit: 0.55, describe: 'digits without separators',
    keywords: [NUMBER_WORDS, ['no separator', 'without separator', 'no comma', 'without comma']],
  },
];

/** The accuracy instruction: not a format, it makes arithmetic slips rarer. */
export const ACCURACY_KEYWORDS: ReadonlyArray<readonly string[]> = [
  ['arithmetic', 'calculation', 'math', 'computation', 'compute', 'numbers'],
  ['double-check', 'double check', 'verify', 'recompute', 'step by step', 'carefully', 're-check', 'recheck'],
];
export const ARITHMETIC_REASON = 'the format is right but the arithmetic is off; work the numbers through carefully';

export const SLOTS: readonly Slot[] = [
  'money', 'containers', 'coupon', 'weight', 'time', 'shipping', 'date', 'percent', 'thousands',
];

/** "slot:option", the form examples list their needs in. */
export type SkillKey = `${Slot}:${string}`;

export function skillKey(c: ConventionOption): SkillKey {
  return `${c.slot}:${c.option}`;
}

export const CONVENTION_BY_SKILL: ReadonlyMap<string, ConventionOption> = new Map(
  CONVENTIONS.map((c) => [skillKey(c), c]),
);

export const OPTIONS_BY_SLOT: ReadonlyMap<Slot, readonly ConventionOption[]> = new Map(
  SLOTS.map((s) => [s, CONVENTIONS.filter((c) => c.slot === s)]),
);

/** The option the model writes by habit, given a uniform draw u in [0, 1). */
export function habitOption(slot: Slot, u: number): ConventionOption {
  const options = OPTIONS_BY_SLOT.get(slot) ?? [];
  let acc = 0;
  for (const option of options) {
    acc += option.habit;
    if (u < acc) return option;
  }
  return options[options.length - 1] as ConventionOption;
}
