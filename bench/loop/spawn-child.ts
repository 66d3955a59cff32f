import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildRequest } from './child.ts';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));

/** Runs one measurement in a fresh `node --expose-gc` process and resolves with its figures. */
export function runChild(framework: string, request: ChildRequest, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', CHILD, framework, JSON.stringify(request)], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    let reply: { ok: true; figures: unknown } | { ok: false; error: string } | undefined;
    child.on('message', (message) => {
      reply = message as typeof reply;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (reply?.ok) resolve(reply.figures);
      else {
        const why = reply ? reply.error : signal ? `killed by ${signal} after ${timeoutMs} ms` : `exit code ${code}`;
        reject(new Error(`${framework} ${request.metric}: ${why}\n${output}`));
      }
    });
  });
}
