#!/usr/bin/env node
// The `gepa-actors` executable (package bin, built to dist/src/cli.js): runs the CLI on the
// process's arguments and exits with its code. Commands live in src/cli/.
import { processIo } from './cli/cliIo.js';
import { runCli } from './cli/program.js';

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
// Open sockets (HTTP keep-alive to the model endpoint) must not hold a finished CLI: if the
// process is still alive a moment after its output is flushed, end it. unref: never delays a
// process that would exit anyway.
setTimeout(() => process.exit(code), 1000).unref();
