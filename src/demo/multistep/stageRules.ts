// The rules a two-stage solver can be told, one table read by both simulated models: which stage
// (planner or answer) a rule belongs to, how likely the model does the right thing by habit when
// its prompt says nothing, the keywords by which a prompt sentence states the rule (or its wrong
// variant), the grader's reason when a step is missed (the reflection LM recognises the cue in
// it), how the reflection LM words the rule, and which broad wordings clash with another rule.

export type Stage = 'planner' | 'answer';
export const STAGES: readonly Stage[] = ['planner', 'answer'];

export type RuleId =
  | 'couponBeforeTax'
  | 'subtractReturns'
  | 'poolShipment'
  | 'legByLeg'
  | 'convertUnits'
  | 'baseIsOriginal'
  | 'tipBeforeSplit'
  | 'netRate'
  | 'ignoreIrrelevant'
  | 'impliedQuantities'
  | 'money'
  | 'roundUp'
  | 'unitLabel'
  | 'duration'
  | 'percent'
  | 'oneDecimal'
  | 'verify';

type KeywordGroups = ReadonlyArray<readonly string[]>;

export interface StageRule {
  id: RuleId;
  stage: Stage;
  /** Chance the model gets this step right by habit when its prompt states nothing about it. */
  habit: number;
  /** A sentence states the rule when it holds a keyword of every group (lower case). */
  keywords: KeywordGroups;
  /** A sentence states the opposite (and the model then does it wrong); checked first. */
  wrongKeywords?: KeywordGroups;
  /** The grader's explanation of a miss; contains `cue`. */
  reason: string;
  /** The words of `reason` by which the reflection LM recognises the miss. */
  cue: string;
  /** The reflection LM's wordings of the rule. */
  phrasings: readonly string[];
  /** Its wordings of the opposite, when it misreads the feedback. */
  wrongPhrasings?: readonly string[];
  /**
   * A wording without one of `unless` clashes with rule `with` when both are stated: the model
   * cannot tell which applies and does both steps worse than with neither rule.
   */
  conflict?: { with: RuleId; unless: readonly string[]; scopedPhrasings: readonly string[] };
}

const CONTAINER = ['box', 'carton', 'container', 'pack'];
const MONEY = ['money', 'amount', 'price', 'total', 'dollar', '$', 'cost'];

export const STAGE_RULES: readonly StageRule[] = [
  {
    id: 'couponBeforeTax', stage: 'planner', habit: 0.4,
    keywords: [['coupon', 'discount'], ['before tax', 'before sales tax', 'before adding tax', 'then add tax', 'then add sales tax', 'then apply the tax', 'then apply tax', 'reduced subtotal']],
    wrongKeywords: [['coupon', 'discount'], ['tax first', 'taxed total', 'after tax', 'after sales tax']],
    reason: 'the coupon comes off the subtotal before sales tax is added', cue: 'before sales tax is added',
    phrasings: [
      'Plan to subtract any coupon from the subtotal before sales tax is added.',
      'Apply coupons first, then add sales tax to the reduced subtotal.',
      'Take the discount off the subtotal, then apply the tax.',
    ],
    wrongPhrasings: ['Add sales tax first, then subtract the coupon from the taxed total.'],
  },
  {
    id: 'subtractReturns', stage: 'planner', habit: 0.45,
    keywords: [['return', 'refund'], ['subtract', 'minus', 'deduct', 'take away', 'net of', 'remove']],
    wrongKeywords: [['return'], ['including returns', 'include returns', 'count every unit']],
    reason: 'returned units are refunded, so subtract the returns from the units sold', cue: 'subtract the returns',
    phrasings: [
      'When items are returned for a refund, subtract them from the units sold before computing revenue.',
      'Revenue counts only the units that were kept: deduct returned units first.',
      'Plan a step that removes refunded returns from the sales.',
    ],
    wrongPhrasings: ['Count every unit sold in revenue, including returns.'],
  },
  {
    id: 'poolShipment', stage: 'planner', habit: 0.4,
    keywords: [[...CONTAINER, 'divid'], ['add up', 'combine', 'pool', 'sum ', 'together', 'altogether', 'one shipment']],
    wrongKeywords: [[...CONTAINER], ['separately', 'each store', 'per store']],
    reason: "the stores' items ship together, so add up all the items before dividing them into boxes",
    cue: 'before dividing them into boxes',
    phrasings: [
      'For packing questions, add up the items from every store first, then divide the total into boxes.',
      'Combine all orders into one shipment before working out how many boxes it needs.',
      'Sum the items across stores before dividing by the box capacity.',
    ],
    wrongPhrasings: ['Work out the boxes for each store separately and add them.'],
  },
  {
    id: 'legByLeg', stage: 'planner', habit: 0.35,
    keywords: [['leg', 'segment', 'stretch', 'part of the trip'], ['separately', 'each', 'own speed', 'one at a time']],
    wrongKeywords: [['average speed', 'mean speed']],
    reason: 'each leg has its own speed, so time every leg separately and add the breaks', cue: 'time every leg separately',
    phrasings: [
      'For trips with several legs, compute the time of each leg from its own distance and speed, then add the breaks.',
      'Time every leg of a journey separately before adding them up.',
      "Do not average the speeds: work out each segment's duration on its own.",
    ],
    wrongPhrasings: ['For trips, divide the total distance by the average speed.'],
  },
  {
    id: 'convertUnits', stage: 'planner', habit: 0.4,
    keywords: [['unit', 'gram', 'kg', 'kilogram'], ['convert', 'same unit', 'common unit']],
    reason: 'the quantities are in different units; convert grams to kilograms before adding', cue: 'different units',
    phrasings: [
      'Convert all quantities to the same unit before combining them.',
      'Before adding amounts, convert grams to kilograms (1 kg = 1000 g).',
      'Put every quantity in a common unit first.',
    ],
  },
  {
    id: 'baseIsOriginal', stage: 'planner', habit: 0.45,
    keywords: [['percent', '%', 'change', 'increase'], ['original', 'old price', 'starting', 'initial', 'base']],
    wrongKeywords: [['percent', 'change', 'increase'], ['new price', 'new value', 'final value']],
    reason: 'a percent change is measured against the original price', cue: 'against the original',
    phrasings: [
      'Compute percent changes relative to the original value.',
      'For a price increase, divide the change by the old price, not the new one.',
      'The base of a percentage change is the starting value.',
    ],
    wrongPhrasings: ['Percent changes are relative to the new price.'],
  },
  {
    id: 'tipBeforeSplit', stage: 'planner', habit: 0.4,
    keywords: [['tip', 'gratuity'], ['before split', 'before dividing', 'then split', 'then divide', 'add the tip', 'include the tip', 'whole bill']],
    wrongKeywords: [['tip'], ['not shared', 'without the tip', 'ignore the tip']],
    reason: 'the tip is added to the bill before it is split between the people', cue: 'before it is split',
    phrasings: [
      'When a bill is shared, add the tip to the whole bill before dividing it between the people.',
      'Include the tip in the total, then split it evenly.',
      'Plan: bill plus tip first, then divide by the number of people.',
    ],
    wrongPhrasings: ['Split the bill first; the tip is not shared.'],
  },
  {
    id: 'netRate', stage: 'planner', habit: 0.35,
    keywords: [['rate', 'flow', 'leak', 'fill', 'drain'], ['subtract', 'net', 'minus', 'combine']],
    reason: 'the tank also leaks, so use the net rate (inflow minus leak)', cue: 'net rate',
    phrasings: [
      'For filling problems, combine the rates first: inflow minus any leak gives the net rate.',
      'Use the net flow rate (in minus out) before dividing the volume by it.',
      'When something fills and drains at once, subtract the drain rate from the fill rate.',
    ],
  },
  {
    id: 'ignoreIrrelevant', stage: 'planner', habit: 0.45,
    keywords: [['number', 'quantit', 'fact', 'detail'], ['irrelevant', 'ignore', 'not needed', 'only the', 'does not need']],
    reason: 'the problem mentions numbers the question does not need; leave them out', cue: 'question does not need',
    phrasings: [
      'Use only the numbers stated in the problem.',
      'Ignore background numbers that the question does not need.',
      'Skip irrelevant details such as opening hours or the number of aisles.',
    ],
    conflict: {
      with: 'impliedQuantities',
      unless: ['background', 'irrelevant', 'not need', 'unrelated'],
      scopedPhrasings: ['Ignore background numbers that the question does not need.', 'Skip irrelevant details such as opening hours or the number of aisles.'],
    },
  },
  {
    id: 'impliedQuantities', stage: 'planner', habit: 0.35,
    keywords: [['week', 'month', 'year', 'implied', 'implicit', 'calendar'], ['look up', 'implied', 'implicit', '52', 'days in', 'calendar fact']],
    reason: 'the question relies on an unstated calendar fact (a year has 52 weeks, months have 28 to 31 days)',
    cue: 'unstated calendar fact',
    phrasings: [
      'Look up implied quantities such as 52 weeks in a year or the number of days in a month.',
      'Some quantities are not stated: use calendar facts like 52 weeks per year and 31 days in March.',
      'Remember implicit facts the question relies on, such as the weeks in a year.',
    ],
  },
  {
    id: 'money', stage: 'answer', habit: 0.4,
    keywords: [MONEY, ['two decimal', '2 decimal', 'cents', '.00']],
    wrongKeywords: [MONEY, ['plain number', 'no dollar', 'without a dollar', 'without the dollar']],
    reason: 'money is written with a dollar sign and two decimals', cue: 'dollar sign and two decimals',
    phrasings: [
      'Write money with a dollar sign and two decimals, like $1,204.50.',
      'Format every amount of money in dollars and cents.',
      'Prices and totals always show a $ sign and two decimal places.',
    ],
    wrongPhrasings: ['Give money amounts as plain numbers without a dollar sign.'],
  },
  {
    id: 'roundUp', stage: 'answer', habit: 0.45,
    keywords: [CONTAINER, ['round up', 'rounded up', 'next whole', 'ceiling', 'partly filled']],
    wrongKeywords: [CONTAINER, ['completely full', 'full boxes', 'round down']],
    reason: 'a partly filled box still ships, so round the number of boxes up', cue: 'round the number of boxes up',
    phrasings: [
      'Round the number of boxes up: a partly filled box still ships.',
      'Container counts are rounded up to the next whole box.',
      'Take the ceiling when dividing items into boxes.',
    ],
    wrongPhrasings: ['Count only completely full boxes.'],
  },
  {
    id: 'unitLabel', stage: 'answer', habit: 0.45,
    keywords: [['unit'], ['include', 'label', 'after the number', 'end the answer', 'with its']],
    wrongKeywords: [['bare number', 'number only', 'just the number']],
    reason: 'the answer must name its unit (boxes, kg, cans)', cue: 'name its unit',
    phrasings: [
      'End the answer with its unit, such as boxes, kg or cans.',
      'Always include the unit after the number.',
      'Label every count or measure with its unit.',
    ],
    wrongPhrasings: ['Reply with the bare number only.'],
  },
  {
    id: 'duration', stage: 'answer', habit: 0.35,
    keywords: [['duration', 'how long', 'travel time', 'trip time'], ['hours and minutes', 'h mm']],
    reason: 'durations are written in hours and minutes (H h MM min), not decimal hours', cue: 'hours and minutes',
    phrasings: [
      'Give durations in hours and minutes, like 3 h 05 min.',
      'Write travel times as hours and minutes (H h MM min), not decimal hours.',
      'Answers to how long questions use hours and minutes.',
    ],
  },
  {
    id: 'percent', stage: 'answer', habit: 0.45,
    keywords: [['percent', 'rate', 'change', 'ratio'], ['%', 'percent sign']],
    reason: 'percentages are written with a % sign and one decimal', cue: '% sign',
    phrasings: [
      'Write percentages with a % sign and one decimal, like 12.5%.',
      'Percent changes are given as a percentage such as 8.0%.',
      'Show rates of change as percent values with a percent sign.',
    ],
  },
  {
    id: 'oneDecimal', stage: 'answer', habit: 0.3,
    keywords: [['round'], ['one decimal', '1 decimal', 'nearest tenth', 'one digit after']],
    reason: 'times are rounded to the nearest tenth of a minute', cue: 'nearest tenth',
    phrasings: [
      'Round every result to one decimal place.',
      'Round times in minutes to the nearest tenth.',
      'Round non-money results to one decimal place.',
    ],
    conflict: {
      with: 'money',
      unless: ['money', 'minute', 'time'],
      scopedPhrasings: ['Round times in minutes to the nearest tenth.', 'Round non-money results to one decimal place.'],
    },
  },
  {
    id: 'verify', stage: 'answer', habit: 0,
    keywords: [['arithmetic', 'calculation', 'computation', 'math'], ['double-check', 'double check', 'verify', 'recompute', 're-check', 'recheck', 'carefully']],
    reason: 'the plan and the format are right but the arithmetic is off; check each calculation', cue: 'arithmetic is off',
    phrasings: [
      'Double-check the arithmetic before giving the final answer.',
      'Work through each calculation carefully and verify the result.',
    ],
  },
];

export const RULE_BY_ID: ReadonlyMap<RuleId, StageRule> = new Map(STAGE_RULES.map((r) => [r.id, r]));

export function ruleOf(id: RuleId): StageRule {
  return RULE_BY_ID.get(id) as StageRule;
}

/** Advice a reflection LM likes to give that states no rule the model can act on. */
export const VAGUE_SENTENCES: Readonly<Record<Stage, readonly string[]>> = {
  planner: [
    'Think about the order of the steps before you start.',
    'Break the problem into small steps.',
    'Make sure the plan covers everything the question asks.',
    'Read the problem twice before planning.',
  ],
  answer: [
    'Make sure the final answer is formatted properly.',
    'Keep the answer short.',
    'State the final result clearly.',
    'Follow the plan exactly.',
  ],
};
