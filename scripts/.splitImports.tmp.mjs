import ts from 'typescript';
import fs from 'node:fs';
import path from 'node:path';
const root = process.cwd();
const entries = { '.': 'src/index.ts', './callbacks': 'src/entries/callbacks.ts', './settings': 'src/entries/settings.ts', './models': 'src/entries/models.ts', './adapters': 'src/entries/adapters.ts', './bullmq': 'src/entries/bullmq.ts', './report': 'src/entries/report.ts', './storage': 'src/entries/storage.ts', './embedding': 'src/entries/embedding.ts', './runtime-model': 'src/entries/runtimeModel.ts', './testing': 'src/entries/testing.ts', './demo': 'src/entries/demo.ts' };
const program = ts.createProgram(Object.values(entries).map((f) => path.join(root, f)), { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, skipLibCheck: true });
const checker = program.getTypeChecker();
const where = new Map();
for (const [sub, file] of Object.entries(entries)) {
  const sym = checker.getSymbolAtLocation(program.getSourceFile(path.join(root, file)));
  for (const e of checker.getExportsOfModule(sym)) { if (where.has(e.name)) throw new Error('twice ' + e.name); where.set(e.name, sub); }
}
fs.writeFileSync('/tmp/entryMap.json', JSON.stringify(Object.fromEntries(where), null, 1));
const IMPORT = /(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*'([^']+)';/g;
function split(kw, typeKw, body, target, specFor) {
  const names = body.split(',').map((s) => s.trim()).filter(Boolean);
  const groups = new Map();
  for (const n of names) {
    const orig = n.replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim();
    const sub = where.get(orig);
    if (!sub) throw new Error(`unknown name ${orig} (${target})`);
    if (!groups.has(sub)) groups.set(sub, []);
    groups.get(sub).push(n);
  }
  const order = Object.keys(entries);
  return [...groups].sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0])).map(([sub, ns]) => `${kw}${typeKw ?? ''} { ${ns.join(', ')} } from '${specFor(sub)}';`).join('\n');
}
let n = 0;
for (const file of process.argv.slice(2)) {
  const src = fs.readFileSync(file, 'utf8');
  const isMd = file.endsWith('.md');
  const out = src.replace(IMPORT, (all, kw, typeKw, body, spec) => {
    if (spec === 'gepa-actors') return split(kw, typeKw, body, file, (sub) => (sub === '.' ? 'gepa-actors' : 'gepa-actors/' + sub.slice(2)));
    if (isMd || !spec.startsWith('.')) return all;
    const resolved = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
    if (resolved !== path.join(root, 'src/index.ts')) return all;
    return split(kw, typeKw, body, file, (sub) => { let r = path.relative(path.dirname(file), path.join(root, entries[sub])).replace(/\.ts$/, '.js'); return r.startsWith('.') ? r : './' + r; });
  });
  if (out !== src) { fs.writeFileSync(file, out); n++; }
}
console.log('changed', n);
