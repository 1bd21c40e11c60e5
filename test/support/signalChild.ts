// A child process for the installSignalHandlers test: prints "ready", then "drain SIGNAL" and
// "abort SIGNAL" as the two controllers are aborted, and otherwise idles until it is ended.
import { installSignalHandlers } from '../../src/storage/stopRequests.js';

const drain = new AbortController();
const abort = new AbortController();
installSignalHandlers(drain, abort, { onSignal: (signal, action) => process.stdout.write(`${action} ${signal}\n`) });
drain.signal.addEventListener('abort', () => {
  if (!drain.signal.reason) process.stdout.write('drain without a reason\n');
});
setInterval(() => {}, 1000);
process.stdout.write('ready\n');
