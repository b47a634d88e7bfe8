/** The child of bench/serviceProcess.ts: starts the service with the options in argv[2] and obeys the parent. */
import { startService } from '../local/devServer.ts';

const send = (m: unknown) => process.send?.(m);
try {
  const svc = await startService(JSON.parse(process.argv[2]));
  // The service keeps its last 5,000 lines: the parent gets that window whenever it changed.
  let last = '';
  const flush = () => {
    const lines = svc.logLines();
    const key = `${lines.length}:${lines.at(-1) ?? ''}`;
    if (key === last) return;
    last = key;
    send({ type: 'log', lines });
  };
  const timer = setInterval(flush, 1000);
  const { pid: _p, logLines: _l, restart: _r, stop: _s, ...info } = svc;
  send({ type: 'ready', info: { ...info, pid: svc.pid() } });
  process.on('message', async (m) => {
    if (m === 'restart') {
      await svc.restart();
      send({ type: 'restarted', pid: svc.pid() });
    } else if (m === 'stop') {
      clearInterval(timer);
      flush();
      await svc.stop();
      send({ type: 'stopped' });
      process.exit(0);
    }
  });
  process.on('disconnect', () => svc.stop().finally(() => process.exit(0)));
} catch (e) {
  send({ type: 'failed', message: (e as Error).message });
  process.exit(1);
}
