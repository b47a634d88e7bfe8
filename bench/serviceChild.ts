/** The child of bench/serviceProcess.ts: starts the service with the options in argv[2] and obeys the parent. */
import { startService } from '../scripts/devServer.ts';

const send = (m: unknown) => process.send?.(m);
try {
  const svc = await startService(JSON.parse(process.argv[2]));
  let sent = 0;
  const flush = () => {
    const lines = svc.logLines();
    // logLines keeps the last 5,000: after a trim, send what is new of them.
    const fresh = lines.length >= sent ? lines.slice(sent) : lines;
    sent = lines.length;
    if (fresh.length) send({ type: 'log', lines: fresh });
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
