// A load generator in its own process: keep-alive GETs of one URL with a fixed number of requests in flight, for a
// fixed time. Prints one JSON line: requests completed, seconds, failures.
//   node bench/server/load.ts <url> <token> <concurrency> <seconds>
import { Agent, request } from 'node:http';

const [url, token, concurrency, seconds] = process.argv.slice(2) as [string, string, string, string];
const agent = new Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const target = new URL(url);
let done = 0;
let failures = 0;
const end = performance.now() + Number(seconds) * 1000;

function one(): Promise<void> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) done++;
          else failures++;
          resolve();
        });
      },
    );
    req.on('error', () => {
      failures++;
      resolve();
    });
    req.end();
  });
}

async function worker(): Promise<void> {
  while (performance.now() < end) await one();
}

const started = performance.now();
await Promise.all(Array.from({ length: Number(concurrency) }, () => worker()));
process.stdout.write(`${JSON.stringify({ done, failures, seconds: (performance.now() - started) / 1000 })}\n`);
agent.destroy();
