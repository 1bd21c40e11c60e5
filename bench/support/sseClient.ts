// A page's event stream as a process of its own (bench/workbenchLag.ts): connects to a workbench
// URL's /events, prints "ready", then `{ t, candidates }` (wall-clock ms, candidates seen) per
// status event, until killed.
import { request } from 'node:http';

const url = new URL(process.argv[2] as string);
const req = request({ host: url.hostname, port: url.port, path: `/events${url.search}`, headers: { accept: 'text/event-stream' } }, (res) => {
  console.log('ready');
  let buffer = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(message)?.[1];
      const data = /^data: (.*)$/m.exec(message)?.[1];
      if (event === 'status' && data) console.log(JSON.stringify({ t: Date.now(), candidates: (JSON.parse(data) as { candidates: number }).candidates }));
      end = buffer.indexOf('\n\n');
    }
  });
});
req.end();
