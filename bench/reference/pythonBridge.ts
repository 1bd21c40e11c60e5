// The Node end of a reference bridge: starts one of the Python bridge scripts beside this file
// with gepa on its PYTHONPATH and answers its JSON-lines requests (a request on its stdout, the
// answer on its stdin) until it exits; a failed answer goes back as { error } and gepa raises it.
// Shared by gepa.optimize's bridge (bridge.ts) and gepa.optimize_anything's (anythingBridge.ts).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../../src/errors/errorMessage.js';
import { gepaPythonPath } from './gepaInstall.js';

export type BridgeRequest = { op: string } & Record<string, unknown>;

/** Runs `script` (a file name in bench/reference/) to its end, answering each request with `answer`. */
export async function runPythonBridge(script: string, answer: (request: BridgeRequest) => Promise<unknown>): Promise<void> {
  const gepaPath = gepaPythonPath();
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = spawn('python3', [path], { env: { ...process.env, PYTHONPATH: gepaPath }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const reply = (value: unknown) => child.stdin.write(`${JSON.stringify(value)}\n`);
  for await (const line of createInterface({ input: child.stdout })) {
    try {
      reply(await answer(JSON.parse(line) as BridgeRequest));
    } catch (error) {
      reply({ error: errorMessage(error) });
    }
  }
  const code = await exited;
  if (code !== 0) throw new Error(`the reference bridge ${script} exited with ${code}:\n${stderr}`);
}
