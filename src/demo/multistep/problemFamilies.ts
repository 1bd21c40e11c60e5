// The multi-step problems of the two-stage task, by family: how a problem is drawn, which steps
// its value depends on (planner rules, and answer rules that only matter once the plan is
// right), which answer format it expects, what the value comes to when a step is done wrong
// (a plausible wrong number, not a random one), and the plan the solver writes down.
import type { Rng } from '../../gepa/core/rng.js';
import { formatMoney, trimDecimal } from '../answerFormat.js';
import type { RuleId } from './stageRules.js';

export type FamilyName =
  | 'invoice' | 'netRevenue' | 'packing' | 'trip' | 'recipe'
  | 'priceChange' | 'splitBill' | 'tank' | 'shelf' | 'subscription';

export type Params = Readonly<Record<string, number>>;
/** Whether the solver did a step right. */
export type StepDone = (step: RuleId) => boolean;

export interface ProblemFamily {
  /** Relative frequency in every split. */
  weight: number;
  /** Value steps in the order they are planned: planner rules first, then answer rules. */
  steps: readonly RuleId[];
  /** The answer rule that decides the format. */
  format: RuleId;
  generate(rng: Rng): { input: string; params: Params };
  value(p: Params, done: StepDone): number;
  render(value: number, formatRight: boolean, p: Params): string;
  plan(p: Params, done: StepDone): string[];
}

const GOODS = ['mugs', 'candles', 'notebooks', 'lamps', 'tea tins', 'scarves', 'bottles', 'plant pots'];
const MONTHS: ReadonlyArray<readonly [string, number]> = [['January', 31], ['March', 31], ['May', 31], ['July', 31], ['February', 28]];

function between(rng: Rng, lo: number, hi: number): number {
  return lo + rng.int(hi - lo + 1);
}
const usd = (cents: number) => formatMoney(cents, 'cents', true);
const money = (cents: number, right: boolean) => formatMoney(cents, right ? 'cents' : 'plain', right);
const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

export const FAMILIES: Readonly<Record<FamilyName, ProblemFamily>> = {
  invoice: {
    weight: 14, steps: ['couponBeforeTax'], format: 'money',
    generate(rng) {
      const qty = between(rng, 2, 12);
      const unit = between(rng, 3, 60) * 100 + rng.pick([0, 25, 50, 75, 99]);
      const coupon = rng.pick([5, 10, 15, 20]);
      const tax = rng.pick([5, 6, 7, 8, 9]);
      const item = rng.pick(GOODS);
      return {
        input: `An order has ${qty} ${item} at ${usd(unit)} each. The customer uses a $${coupon} coupon and sales tax is ${tax}%. What does the customer pay?`,
        params: { sub: qty * unit, coupon: coupon * 100, tax },
      };
    },
    value: (p, done) =>
      done('couponBeforeTax')
        ? Math.round(((p.sub! - p.coupon!) * (100 + p.tax!)) / 100)
        : Math.round((p.sub! * (100 + p.tax!)) / 100) - p.coupon!,
    render: (v, right) => money(v, right),
    plan: (p, done) =>
      done('couponBeforeTax')
        ? [`Subtotal ${usd(p.sub!)}.`, `Take off the ${usd(p.coupon!)} coupon.`, `Add ${p.tax}% sales tax.`]
        : [`Subtotal ${usd(p.sub!)}.`, `Add ${p.tax}% sales tax.`, `Take off the ${usd(p.coupon!)} coupon.`],
  },
  netRevenue: {
    weight: 10, steps: ['subtractReturns'], format: 'money',
    generate(rng) {
      const sold = between(rng, 40, 300);
      const returned = between(rng, 2, Math.floor(sold / 8));
      const price = between(rng, 4, 80) * 100 + rng.pick([0, 50, 95]);
      return {
        input: `The shop sold ${sold} ${rng.pick(GOODS)} at ${usd(price)} each; ${returned} of them were returned for a full refund. What is the revenue?`,
        params: { sold, returned, price },
      };
    },
    value: (p, done) => (done('subtractReturns') ? p.sold! - p.returned! : p.sold!) * p.price!,
    render: (v, right) => money(v, right),
    plan: (p, done) =>
      done('subtractReturns')
        ? [`Units kept: ${p.sold} sold minus ${p.returned} returned.`, 'Multiply by the price.']
        : [`Multiply the ${p.sold} units sold by the price.`],
  },
  packing: {
    weight: 12, steps: ['poolShipment', 'roundUp'], format: 'unitLabel',
    generate(rng) {
      for (;;) {
        const per = rng.pick([6, 8, 10, 12, 24]);
        const counts = Array.from({ length: between(rng, 2, 3) }, () => between(rng, 13, 90));
        const sum = counts.reduce((s, c) => s + c, 0);
        const separate = counts.reduce((s, c) => s + Math.ceil(c / per), 0);
        if (sum % per === 0 || separate === Math.ceil(sum / per)) continue;
        const list = counts.length === 2 ? `${counts[0]} and ${counts[1]}` : `${counts[0]}, ${counts[1]} and ${counts[2]}`;
        return {
          input: `${counts.length === 2 ? 'Two' : 'Three'} stores order ${list} ${rng.pick(GOODS)}; everything goes out in one shipment, in boxes that hold ${per} each. How many boxes are needed?`,
          params: { per, a: counts[0]!, b: counts[1]!, c: counts[2] ?? 0 },
        };
      }
    },
    value(p, done) {
      const round = done('roundUp') ? Math.ceil : Math.floor;
      const counts = [p.a!, p.b!, p.c!].filter((c) => c > 0);
      if (done('poolShipment')) return round(counts.reduce((s, c) => s + c, 0) / p.per!);
      return counts.reduce((s, c) => s + round(c / p.per!), 0);
    },
    render: (v, right) => (right ? `${v} boxes` : String(v)),
    plan: (p, done) => [
      done('poolShipment') ? 'Add up the items of all stores.' : 'Take each store on its own.',
      `Divide by ${p.per} per box and ${done('roundUp') ? 'round up' : 'keep the full boxes'}.`,
    ],
  },
  trip: {
    weight: 10, steps: ['legByLeg'], format: 'duration',
    generate(rng) {
      const speeds = [40, 60, 80, 100, 120];
      const s1 = rng.pick(speeds);
      let s2 = rng.pick(speeds);
      while (s2 === s1) s2 = rng.pick(speeds);
      const t1 = between(rng, 2, 12) * 15;
      const t2 = between(rng, 2, 12) * 15;
      const pause = rng.pick([10, 15, 20, 30, 45]);
      return {
        input: `A van drives ${(s1 * t1) / 60} km at ${s1} km/h, stops for ${pause} minutes, then drives ${(s2 * t2) / 60} km at ${s2} km/h. How long does the trip take?`,
        params: { s1, s2, t1, t2, pause },
      };
    },
    value(p, done) {
      if (done('legByLeg')) return p.t1! + p.t2! + p.pause!;
      const km = (p.s1! * p.t1! + p.s2! * p.t2!) / 60;
      return Math.round((km / ((p.s1! + p.s2!) / 2)) * 60) + p.pause!;
    },
    render: (v, right) => (right ? `${Math.floor(v / 60)} h ${pad2(v % 60)} min` : `${trimDecimal(v / 60, 2)} hours`),
    plan: (p, done) =>
      done('legByLeg')
        ? ['Time the first leg from its distance and speed.', 'Time the second leg the same way.', `Add both and the ${p.pause}-minute stop.`]
        : ['Add up the distances.', 'Divide by the average of the two speeds.', `Add the ${p.pause}-minute stop.`],
  },
  recipe: {
    weight: 9, steps: ['convertUnits'], format: 'unitLabel',
    generate(rng) {
      const loaves = between(rng, 6, 40);
      const grams = between(rng, 8, 24) * 25;
      const reserve = between(rng, 1, 5);
      return {
        input: `Each loaf needs ${grams} g of flour. The bakery makes ${loaves} loaves and keeps a reserve of ${reserve} kg. How many kilograms of flour does it need?`,
        params: { loaves, grams, reserve },
      };
    },
    value: (p, done) => (done('convertUnits') ? (p.loaves! * p.grams!) / 1000 : p.loaves! * p.grams!) + p.reserve!,
    render: (v, right) => (right ? `${trimDecimal(v, 3)} kg` : trimDecimal(v, 3)),
    plan: (p, done) =>
      done('convertUnits')
        ? [`Flour for the loaves: ${p.loaves} x ${p.grams} g, in kilograms.`, `Add the ${p.reserve} kg reserve.`]
        : [`Flour for the loaves: ${p.loaves} x ${p.grams}.`, `Add the reserve of ${p.reserve}.`],
  },
  priceChange: {
    weight: 8, steps: ['baseIsOriginal'], format: 'percent',
    generate(rng) {
      const before = between(rng, 20, 400);
      const after = before + between(rng, 1, Math.floor(before / 2));
      return {
        input: `A ${rng.pick(GOODS.slice(0, 4)).replace(/s$/, '')} cost $${before} last year and costs $${after} now. By what percent did the price rise?`,
        params: { before, after },
      };
    },
    value: (p, done) => ((p.after! - p.before!) / (done('baseIsOriginal') ? p.before! : p.after!)) * 100,
    render: (v, right) => (right ? `${v.toFixed(1)}%` : trimDecimal(v / 100, 3)),
    plan: (_p, done) => ['Find the rise in price.', `Divide it by the ${done('baseIsOriginal') ? 'old' : 'new'} price.`],
  },
  splitBill: {
    weight: 8, steps: ['tipBeforeSplit'], format: 'money',
    generate(rng) {
      const bill = between(rng, 40, 400) * 100 + between(rng, 0, 99);
      const tip = rng.pick([10, 15, 18, 20]);
      const people = between(rng, 2, 8);
      return {
        input: `Dinner for ${people} costs ${usd(bill)} and they leave a ${tip}% tip. Everyone pays the same share. How much does each person pay?`,
        params: { bill, tip, people },
      };
    },
    value: (p, done) => Math.round((done('tipBeforeSplit') ? (p.bill! * (100 + p.tip!)) / 100 : p.bill!) / p.people!),
    render: (v, right) => money(v, right),
    plan: (p, done) =>
      done('tipBeforeSplit') ? [`Add the ${p.tip}% tip to the bill.`, `Divide by ${p.people}.`] : [`Divide the bill by ${p.people}.`],
  },
  tank: {
    weight: 9, steps: ['netRate'], format: 'oneDecimal',
    generate(rng) {
      for (;;) {
        const volume = between(rng, 20, 200) * 10;
        const inflow = between(rng, 8, 40);
        const leak = between(rng, 1, Math.floor(inflow / 3));
        const exact = volume / (inflow - leak);
        if (Number(exact.toFixed(1)) === exact || Number((volume / inflow).toFixed(1)) === exact) continue;
        return {
          input: `A ${volume}-litre tank is filled at ${inflow} litres per minute while it leaks ${leak} litres per minute. How many minutes does it take to fill?`,
          params: { volume, inflow, leak },
        };
      }
    },
    value: (p, done) => p.volume! / (done('netRate') ? p.inflow! - p.leak! : p.inflow!),
    render: (v, right) => `${right ? v.toFixed(1) : trimDecimal(v, 4)} minutes`,
    plan: (p, done) =>
      done('netRate') ? [`Net rate: ${p.inflow} minus ${p.leak} litres per minute.`, 'Divide the volume by it.'] : ['Divide the volume by the fill rate.'],
  },
  shelf: {
    weight: 8, steps: ['ignoreIrrelevant'], format: 'unitLabel',
    generate(rng) {
      const aisles = between(rng, 2, 6);
      const rows = between(rng, 3, 9);
      const each = between(rng, 4, 16);
      return {
        input: `The store has ${aisles} aisles and opens ${between(rng, 8, 12)} hours a day. One shelf has ${rows} rows of ${each} cans. How many cans are on that shelf?`,
        params: { aisles, rows, each },
      };
    },
    value: (p, done) => p.rows! * p.each! * (done('ignoreIrrelevant') ? 1 : p.aisles!),
    render: (v, right) => (right ? `${v} cans` : String(v)),
    plan: (p, done) =>
      done('ignoreIrrelevant') ? [`Multiply ${p.rows} rows by ${p.each} cans.`] : [`Multiply ${p.rows} rows by ${p.each} cans.`, `Multiply by the ${p.aisles} aisles.`],
  },
  subscription: {
    weight: 7, steps: ['impliedQuantities'], format: 'money',
    generate(rng) {
      const price = between(rng, 3, 30) * 100 + rng.pick([0, 49, 99]);
      if (rng.next() < 0.5) {
        return { input: `A coffee subscription costs ${usd(price)} per week. What does it cost for a whole year?`, params: { price, units: 52, guess: 48 } };
      }
      const [month, days] = rng.pick(MONTHS);
      return { input: `A parking space costs ${usd(price)} per day. What does it cost for every day of ${month} 2025?`, params: { price, units: days, guess: 30 } };
    },
    value: (p, done) => p.price! * (done('impliedQuantities') ? p.units! : p.guess!),
    render: (v, right) => money(v, right),
    plan: (p, done) => [`Count the periods: ${done('impliedQuantities') ? p.units : p.guess}.`, 'Multiply by the price.'],
  },
};

export const FAMILY_NAMES = Object.keys(FAMILIES) as FamilyName[];
