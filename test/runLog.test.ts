// The run log's reading rules, by hand: whole lines are records, a torn last line is dropped
// (and cut off before the next append), damage before the end names its line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunDirectoryError } from '../src/storage/runDirectoryError.js';
import { parseRunLog, recordLine, RunLogWriter, type RunLogRecord } from '../src/storage/runLog.js';

const a: RunLogRecord = { t: 'eval', key: 'h:0:0', evaluation: { score: 1 } };
const b: RunLogRecord = { t: 'reflect', promptHash: 'p', reply: { text: 'new prompt' } };
const lineA = '{"t":"eval","key":"h:0:0","evaluation":{"score":1}}\n';
const lineB = '{"t":"reflect","promptHash":"p","reply":{"text":"new prompt"}}\n';
const parse = (text: string) => parseRunLog(Buffer.from(text, 'utf8'));

const scratch = mkdtempSync(join(tmpdir(), 'gepa-runlog-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('parseRunLog', () => {
  it('reads whole lines as records', () => {
    expect(recordLine(a)).toBe(lineA);
    expect(parse('')).toEqual({ records: [], validBytes: 0 });
    expect(parse(lineA + lineB)).toEqual({ records: [a, b], validBytes: lineA.length + lineB.length });
  });

  it('drops a last line with no newline, even one that parses', () => {
    expect(parse(`${lineA}{"t":"ev`)).toEqual({ records: [a], validBytes: lineA.length, tornLine: 2 });
    expect(parse(lineA + lineB.trimEnd())).toEqual({ records: [a], validBytes: lineA.length, tornLine: 2 });
  });

  it('drops invalid JSON on the last line, newline or not', () => {
    expect(parse(`${lineA}{"t":"ev\n`)).toEqual({ records: [a], validBytes: lineA.length, tornLine: 2 });
  });

  it('names the line of damage before the end', () => {
    expect(() => parse(`${lineA}{"t":"ev\n${lineB}`)).toThrow(RunDirectoryError);
    expect(() => parse(`${lineA}{"t":"ev\n${lineB}`)).toThrow(/^log\.jsonl line 2: invalid JSON \(/);
    expect(() => parse(`${lineA}\n${lineB}`)).toThrow(/^log\.jsonl line 2: invalid JSON/);
    // Valid JSON that is no record is not a torn write, even at the end.
    expect(() => parse(`${lineA}{"t":"eval","key":"k"}\n`)).toThrow(/^log\.jsonl line 2: not a run log record: evaluation: /);
    expect(() => parse(`{"t":"nap"}\n${lineA}`)).toThrow(/^log\.jsonl line 1: not a run log record/);
  });

  it('counts bytes, not characters, so a torn tail after non-ASCII text is cut at the right place', () => {
    const accented: RunLogRecord = { t: 'reflect', promptHash: 'q', reply: { text: 'déjà vu ✓' } };
    const line = recordLine(accented);
    expect(parse(`${line}{"t"`)).toEqual({ records: [accented], validBytes: Buffer.byteLength(line), tornLine: 2 });
  });
});

describe('RunLogWriter', () => {
  it('cuts a torn tail before appending, so no record is glued to it', () => {
    const path = join(scratch, 'log.jsonl');
    writeFileSync(path, `${lineA}{"t":"ev`);
    const writer = new RunLogWriter(path, lineA.length);
    writer.append(b);
    writer.close();
    expect(readFileSync(path, 'utf8')).toBe(lineA + lineB);
  });

  it('logs an evaluation whose output is not JSON without its output and trace', () => {
    const output: Record<string, unknown> = {};
    output.self = output;
    const line = recordLine({ t: 'eval', key: 'k', evaluation: { score: 0.5, feedback: 'ok', output, trace: 1 } });
    expect(line).toBe('{"t":"eval","key":"k","evaluation":{"score":0.5,"feedback":"ok"}}\n');
  });
});
