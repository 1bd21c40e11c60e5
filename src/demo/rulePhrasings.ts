// The simulated reflection LM's vocabulary: several wordings of a rule for every convention
// (right or wrong for the data), generic filler it likes to add, and the feedback cues by which
// it recognises what a failed answer was missing. The task model parses all of these through
// keywords (promptRules.ts), never by exact string.
import type { SkillKey } from './conventions.js';

export const RULE_PHRASINGS: Readonly<Record<string, readonly string[]>> = {
  'money:cents': [
    'Write every amount of money with a dollar sign and exactly two decimals, like $7.50.',
    'Format prices and totals in dollars and cents, such as $1,204.00.',
    'Money amounts must always show two decimal places and a leading $ sign.',
  ],
  'money:whole': [
    'Round money amounts to the nearest whole dollar, with no cents.',
    'Quote totals in whole dollars, for example $8 rather than $7.50.',
    'Prices in answers are rounded to whole dollars.',
  ],
  'money:plain': ['Give amounts of money as plain numbers without a currency symbol.'],
  'containers:ceil': [
    'When asked how many boxes, cartons or trays are needed, always round up to the next whole container.',
    'A partly filled container still counts, so the number of packs needed is rounded up.',
    'Report whole containers only, taking the ceiling of items divided by capacity.',
  ],
  'containers:floor': ['Only count full boxes: round the number of containers down.'],
  'containers:decimal': ['Give the exact number of boxes as a decimal; do not round.'],
  'coupon:before': [
    'Subtract coupons from the subtotal before sales tax is added.',
    'Apply any discount or coupon first, then add sales tax to the reduced subtotal.',
    'Sales tax is charged on the amount left after the coupon is taken off.',
  ],
  'coupon:after': ['Add sales tax first, then subtract the coupon.'],
  'weight:kg': [
    'Give shipping weights in kilograms (1 kg = 1000 g).',
    'Convert item weights from grams to kilograms before answering.',
    'Total weights are reported in kg.',
  ],
  'weight:grams': ['Report weights in grams.'],
  'time:24h': [
    'Write clock times in 24-hour format, as HH:MM.',
    'Use the 24-hour clock for arrival times (15:15 rather than 3:15 PM).',
    'Times should be given as HH:MM on a 24 hour clock.',
  ],
  'time:12h': ['Write times in 12-hour format with AM/PM.'],
  'shipping:business': [
    'Shipping times count business days only; weekends do not count.',
    'Delivery days are working days (Monday to Friday), so skip weekends.',
    'Count transit time in weekdays, excluding Saturdays and Sundays.',
  ],
  'shipping:calendar': ['Shipping time is counted in calendar days.'],
  'date:iso': [
    'Write dates in ISO format, YYYY-MM-DD.',
    'Give every date as year-month-day, like 2025-03-18.',
    'Dates in answers use the YYYY-MM-DD form.',
  ],
  'date:dayFirst': [
    'Write dates day first, as DD/MM/YYYY.',
    'Use the European date format DD/MM/YYYY.',
  ],
  'date:us': ['Write dates as MM/DD/YYYY.'],
  'date:long': ['Write dates out in words, like March 18, 2025.'],
  'percent:sign': [
    'Express rates as percentages with a % sign, for example 12.5%.',
    'Return rates and other ratios are written as percent values like 8%.',
    'Give proportions as a percentage rounded to one decimal.',
  ],
  'percent:fraction': ['Give rates as a decimal between 0 and 1.'],
  'thousands:comma': [
    'Use commas as thousands separators in large numbers, such as 60,000.',
    'Numbers of 1,000 or more are written with thousands separators.',
    'Large counts need a comma between each group of three digits.',
  ],
  'thousands:none': ['Write large numbers without separators.'],
};

export const ACCURACY_PHRASINGS: readonly string[] = [
  'Double-check the arithmetic before giving the final answer.',
  'Work through each calculation step by step and verify the result.',
];

/** Plausible advice that changes nothing the grader checks. */
export const FILLER_SENTENCES: readonly string[] = [
  'Be polite and friendly in every reply.',
  "Read the customer's question carefully.",
  'Keep the answer short and to the point.',
  'Think about what the customer really needs.',
  'Use a professional tone.',
  'Answer in English.',
  'Make sure the answer is complete.',
];

export const INTRO_SENTENCES: readonly string[] = [
  "You answer questions from an online shop's support tickets.",
  'You are the support assistant of an online shop; answer each ticket with the final value.',
  'You handle customer tickets for an online shop and reply with the answer only.',
];

/** Phrases of the task model's feedback and the convention each one points to. */
export const FEEDBACK_CUES: ReadonlyArray<readonly [string, SkillKey | 'accuracy']> = [
  ['two decimals', 'money:cents'],
  ['nearest whole dollar', 'money:whole'],
  ['containers up', 'containers:ceil'],
  ['before sales tax', 'coupon:before'],
  ['kilograms', 'weight:kg'],
  ['24-hour', 'time:24h'],
  ['business days', 'shipping:business'],
  ['yyyy-mm-dd', 'date:iso'],
  ['dd/mm/yyyy', 'date:dayFirst'],
  ['% sign', 'percent:sign'],
  ['thousands separators', 'thousands:comma'],
  ['arithmetic is off', 'accuracy'],
];

/** Misleading rules the LM sometimes believes in, per slot a wrong form. */
export const WRONG_TURNS: readonly SkillKey[] = [
  'money:whole', 'money:plain', 'containers:floor', 'coupon:after', 'weight:grams',
  'time:12h', 'shipping:calendar', 'date:dayFirst', 'date:long', 'percent:fraction', 'thousands:none',
];
