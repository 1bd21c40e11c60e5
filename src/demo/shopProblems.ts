// The kinds of support tickets in the demo dataset: how each one is generated from an Rng, which
// conventions its answer depends on, and how its answer reads under any choice of conventions.
// The same `answerOf` gives the expected answer (expected conventions) and the simulated model's
// output (the conventions it actually followed).
import type { Rng } from '../gepa/core/rng.js';
import { dayOf, formatDate, formatMoney, formatTime, groupDigits, trimDecimal, WEEKDAYS, weekdayOf } from './answerFormat.js';
import type { SkillKey } from './conventions.js';

export type ProblemKind =
  | 'total' | 'coupon' | 'containers' | 'weight' | 'arrival'
  | 'delivery' | 'promo' | 'returns' | 'stock' | 'shelf';

/** Which form the answer takes per slot; a missing slot means "irrelevant here". */
export type Choices = Readonly<Record<string, string | undefined>>;

export interface GeneratedProblem {
  input: string;
  params: Record<string, number>;
  skills: SkillKey[];
}

interface ProblemSpec {
  /** Share of the dataset, in percent. */
  weight: number;
  /** Kinds with a minority variant (wholesale account, Lyon store) expect the other convention. */
  minorityShare: number;
  generate(rng: Rng, ticket: string, minority: boolean): GeneratedProblem;
  answerOf(params: Readonly<Record<string, number>>, choices: Choices): string;
}

const GOODS = ['mugs', 'candles', 'notebooks', 'desk lamps', 'jars of honey', 'tea tins', 'scarves', 'water bottles', 'plant pots', 'phone cases'];
const CONTAINER_NAMES = ['boxes', 'cartons', 'crates', 'trays'];

function between(rng: Rng, lo: number, hi: number): number {
  return lo + rng.int(hi - lo + 1);
}

function dollars(cents: number): string {
  return formatMoney(cents, 'cents', true);
}

function longDate(day: number): string {
  return `${WEEKDAYS[weekdayOf(day)]}, ${formatDate(day, 'long')}`;
}

function addBusinessDays(day: number, n: number): number {
  let d = day;
  for (let left = n; left > 0; ) {
    d++;
    const w = weekdayOf(d);
    if (w !== 0 && w !== 6) left--;
  }
  return d;
}

const YEAR_START = dayOf(2025, 1, 1);

export const PROBLEMS: Readonly<Record<ProblemKind, ProblemSpec>> = {
  total: {
    weight: 16,
    minorityShare: 0.3,
    generate(rng, ticket, wholesale) {
      let qty = 0;
      let unit = 0;
      do {
        qty = between(rng, 2, 24);
        unit = between(rng, 2, 89) * 100 + rng.pick([5, 15, 25, 45, 49, 75, 95, 99]);
      } while ((qty * unit) % 100 === 0);
      const total = qty * unit;
      const item = rng.pick(GOODS);
      const input = wholesale
        ? `Ticket #${ticket} (wholesale account): ${qty} ${item} at ${dollars(unit)} each. What total do we quote?`
        : `Ticket #${ticket}: a customer orders ${qty} ${item} at ${dollars(unit)} each. What is the order total?`;
      const skills: SkillKey[] = [wholesale ? 'money:whole' : 'money:cents'];
      if (total >= 100_000) skills.push('thousands:comma');
      return { input, params: { total }, skills };
    },
    answerOf: (p, c) => formatMoney(p.total ?? 0, c.money ?? 'cents', c.thousands === 'comma'),
  },
  coupon: {
    weight: 10,
    minorityShare: 0.3,
    generate(rng, ticket, wholesale) {
      for (;;) {
        const subtotal = between(rng, 20, 600) * 100 + between(rng, 1, 99);
        const coupon = rng.pick([5, 10, 15, 20, 25]) * 100;
        const taxPermille = rng.pick([50, 60, 70, 75, 80, 82.5, 90]);
        const before = Math.round(((subtotal - coupon) * (1000 + taxPermille)) / 1000);
        const after = Math.round((subtotal * (1000 + taxPermille)) / 1000) - coupon;
        // Whole-dollar rounding can hide the order of operations; such a ticket tests nothing.
        if (wholesale && formatMoney(before, 'whole', true) === formatMoney(after, 'whole', true)) continue;
        const input =
          `Ticket #${ticket}${wholesale ? ' (wholesale account)' : ''}: the cart subtotal is ${dollars(subtotal)}, ` +
          `the customer applies a ${dollars(coupon).replace('.00', '')} coupon, and sales tax is ${taxPermille / 10}%. ` +
          `How much does the customer pay?`;
        return { input, params: { before, after }, skills: [wholesale ? 'money:whole' : 'money:cents', 'coupon:before'] };
      }
    },
    answerOf: (p, c) =>
      formatMoney((c.coupon === 'after' ? p.after : p.before) ?? 0, c.money ?? 'cents', c.thousands === 'comma'),
  },
  containers: {
    weight: 12,
    minorityShare: 0,
    generate(rng, ticket) {
      let items = 0;
      let per = 0;
      do {
        per = rng.pick([6, 8, 10, 12, 20, 24]);
        items = between(rng, 30, 400);
      } while (items % per === 0);
      const name = rng.pick(CONTAINER_NAMES);
      const input = `Ticket #${ticket}: ${items} ${rng.pick(GOODS)} have to be shipped in ${name} that hold ${per} each. How many ${name} are needed?`;
      return { input, params: { items, per, name: CONTAINER_NAMES.indexOf(name) }, skills: ['containers:ceil'] };
    },
    answerOf(p, c) {
      const items = p.items ?? 0;
      const per = p.per ?? 1;
      const name = CONTAINER_NAMES[p.name ?? 0];
      if (c.containers === 'floor') return `${Math.floor(items / per)} ${name}`;
      if (c.containers === 'decimal') return `${(items / per).toFixed(2)} ${name}`;
      return `${Math.ceil(items / per)} ${name}`;
    },
  },
  weight: {
    weight: 9,
    minorityShare: 0,
    generate(rng, ticket) {
      const count = between(rng, 4, 60);
      const grams = between(rng, 24, 190) * 5;
      const input = `Ticket #${ticket}: a parcel holds ${count} ${rng.pick(GOODS)} weighing ${grams} g each. What is its total weight?`;
      return { input, params: { grams: count * grams }, skills: ['weight:kg'] };
    },
    answerOf: (p, c) =>
      c.weight === 'grams' ? `${p.grams ?? 0} g` : `${trimDecimal((p.grams ?? 0) / 1000, 3)} kg`,
  },
  arrival: {
    weight: 9,
    minorityShare: 0,
    generate(rng, ticket) {
      const start = between(rng, 72, 167) * 5; // 06:00 .. 13:55
      const duration = between(rng, 13, 119) * 5; // 1 h 05 .. 9 h 55
      const h = Math.floor(duration / 60);
      const m = duration % 60;
      const input = `Ticket #${ticket}: the courier leaves the depot at ${formatTime(start, '12h')} and the route takes ${m === 0 ? `${h} h` : `${h} h ${m} min`}. At what time does it arrive?`;
      return { input, params: { end: start + duration }, skills: ['time:24h'] };
    },
    answerOf: (p, c) => formatTime(p.end ?? 0, c.time ?? '24h'),
  },
  delivery: {
    weight: 9,
    minorityShare: 0.3,
    generate(rng, ticket, lyon) {
      for (;;) {
        const placed = YEAR_START + rng.int(365);
        const w = weekdayOf(placed);
        if (w === 0 || w === 6) continue;
        const days = between(rng, 2, 6);
        const business = addBusinessDays(placed, days);
        const calendar = placed + days;
        if (business === calendar) continue; // no weekend in between: nothing to get wrong
        const input = `Ticket #${ticket}${lyon ? ' (Lyon store)' : ''}: an order placed on ${longDate(placed)} goes by standard shipping, which takes ${days} days. On what date does it arrive?`;
        return { input, params: { business, calendar }, skills: ['shipping:business', lyon ? 'date:dayFirst' : 'date:iso'] };
      }
    },
    answerOf: (p, c) =>
      formatDate((c.shipping === 'calendar' ? p.calendar : p.business) ?? 0, c.date ?? 'iso'),
  },
  promo: {
    weight: 7,
    minorityShare: 0.3,
    generate(rng, ticket, lyon) {
      const from = YEAR_START + rng.int(365);
      const days = between(rng, 10, 120);
      const input = `Ticket #${ticket}${lyon ? ' (Lyon store)' : ''}: a promotion starts ${days} days after ${formatDate(from, 'long')}. On what date does it start?`;
      return { input, params: { day: from + days }, skills: [lyon ? 'date:dayFirst' : 'date:iso'] };
    },
    answerOf: (p, c) => formatDate(p.day ?? 0, c.date ?? 'iso'),
  },
  returns: {
    weight: 9,
    minorityShare: 0,
    generate(rng, ticket) {
      const orders = between(rng, 80, 800);
      const returned = between(rng, 3, Math.floor(orders / 5));
      const input = `Ticket #${ticket}: of ${orders} orders last month, ${returned} were returned. What was the return rate?`;
      return { input, params: { orders, returned }, skills: ['percent:sign'] };
    },
    answerOf(p, c) {
      const ratio = (p.returned ?? 0) / (p.orders ?? 1);
      return c.percent === 'fraction' ? trimDecimal(ratio, 3) : `${trimDecimal(ratio * 100, 1)}%`;
    },
  },
  stock: {
    weight: 8,
    minorityShare: 0,
    generate(rng, ticket) {
      const pallets = between(rng, 12, 90);
      const units = between(rng, 12, 240) * 10;
      const input = `Ticket #${ticket}: the warehouse has ${pallets} pallets with ${units} units each. How many units are in stock?`;
      return { input, params: { units: pallets * units }, skills: ['thousands:comma'] };
    },
    answerOf: (p, c) => `${groupDigits(p.units ?? 0, c.thousands === 'comma')} units`,
  },
  shelf: {
    weight: 11,
    minorityShare: 0,
    generate(rng, ticket) {
      const rows = between(rng, 3, 9);
      const each = between(rng, 4, 16);
      const item = rng.pick(GOODS);
      const input = `Ticket #${ticket}: a shelf has ${rows} rows of ${each} ${item}. How many ${item} are on the shelf?`;
      return { input, params: { count: rows * each, item: GOODS.indexOf(item) }, skills: [] };
    },
    answerOf: (p) => `${p.count ?? 0} ${GOODS[p.item ?? 0]}`,
  },
};

export const PROBLEM_KINDS = Object.keys(PROBLEMS) as ProblemKind[];
