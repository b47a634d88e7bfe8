/**
 * The service in a process of its own, as `npm start` runs it (local/start.mjs): serverless-offline in
 * its child, and `startService`'s supervision (reading the child's output, restarting it) in this separate
 * process, not in the bench's. A bench that called `startService` itself would do that work on its own
 * event loop, beside its load generator: a browser's requests never share a thread with the service's
 * supervisor (docs/benchmarks.md).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RunningService, ServiceOptions } from '../local/devServer.ts';

type Info = Omit<RunningService, 'pid' | 'logLines' | 'echoFromNow' | 'restart' | 'stop'> & { pid?: number };
type Message =
  | { type: 'ready'; info: Info }
  | { type: 'failed'; message: string }
  | { type: 'log'; lines: string[] }
  | { type: 'restarted'; pid?: number }
  | { type: 'stopped' };

const CHILD = fileURLToPath(new URL('./serviceChild.js', import.meta.url));

/** A service in a process of its own: `processPid` is that process (the embedded database runs in it). */
export type ServiceProcess = RunningService & { processPid: number };

export async function startServiceProcess(options: ServiceOptions): Promise<ServiceProcess> {
  // As `npm start` runs (package.json): one malloc arena (docs/connections.md).
  const child: ChildProcess = fork(CHILD, [JSON.stringify(options)], {
    stdio: 'inherit',
    env: { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '1' },
  });
  let lines: string[] = [];
  let pid: number | undefined;
  const next = (type: Message['type']) =>
    new Promise<Message>((ok, fail) => {
      const onMessage = (m: Message) => {
        if (m.type === 'log') return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (m.type === 'failed') fail(new Error(m.message));
        else if (m.type !== type) fail(new Error(`service process: expected ${type}, got ${m.type}`));
        else ok(m);
      };
      const onExit = (code: number | null) => fail(new Error(`service process exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  child.on('message', (m: Message) => {
    if (m.type === 'log') lines = m.lines;
  });
  const ready = (await next('ready')) as Extract<Message, { type: 'ready' }>;
  pid = ready.info.pid;
  return {
    ...ready.info,
    processPid: child.pid as number,
    pid: () => pid,
    logLines: () => [...lines],
    echoFromNow: () => {},
    async restart() {
      const done = next('restarted');
      child.send('restart');
      pid = ((await done) as Extract<Message, { type: 'restarted' }>).pid;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const done = next('stopped');
      child.send('stop');
      await done;
    },
  };
}
