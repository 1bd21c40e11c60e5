// What the best prompts of two variants are made of, on the demo task: sentences, clutter,
// rules the model obeys (the first per slot), rules shadowed by an earlier one, ticket-specific answers (which help
// the valset and not the testset). A diagnostic for the async issue's demo gap: do stale
// lineages, rebased, pile up rules the sequential loop would not?
//
//   npx tsx bench/promptAnatomy.ts [--seeds 24] [variant...]     (variants: bench/mechanisms.ts list)
import { parsePrompt } from '../src/demo/promptRules.js';
import { benchRun } from './benchTask.js';
import { VARIANTS, WORKLOAD } from './mechanismVariants.js';

const args = process.argv.slice(2);
const at = args.indexOf('--seeds');
const seeds = at >= 0 ? Number(args[at + 1]) : 24;
const names = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--seeds');
const variants = names.length > 0 ? names : ['single', 'async 8 rebase best'];

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

console.log(`| variant | seeds | val | test | sentences | chars | clutter | rules obeyed | shadowed | ticket answers |`);
console.log(`|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
for (const name of variants) {
  const v = VARIANTS[name];
  if (!v) throw new Error(`unknown variant '${name}'`);
  const rows: number[][] = [];
  for (let seed = 0; seed < seeds; seed++) {
    const r = await benchRun({ label: name, schedule: v.schedule, ...(v.options ? { options: v.options } : {}) }, seed, { ...WORKLOAD, task: 'demo' });
    const p = parsePrompt(r.bestCandidate.system_prompt ?? '');
    rows.push([r.bestValScore, r.testScore, p.sentences.length, p.text.length, p.clutter, p.rules.size, p.shadowed.length, p.ticketAnswers.size]);
  }
  const cols = rows[0]!.map((_, i) => mean(rows.map((row) => row[i]!)));
  const [val, test, sentences, chars, clutter, rules, shadowed, tickets] = cols as number[];
  console.log(`| ${name} | ${seeds} | ${val!.toFixed(3)} | ${test!.toFixed(3)} | ${sentences!.toFixed(1)} | ${chars!.toFixed(0)} | ${clutter!.toFixed(3)} | ${rules!.toFixed(1)} | ${shadowed!.toFixed(1)} | ${tickets!.toFixed(1)} |`);
}
