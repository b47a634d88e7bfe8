import net from 'node:net';

/**
 * One public port for the HTTP API and the WebSocket API under `npm start` (docs/live-updates.md): the
 * MMGIS web client opens `ws://<its own host>/`, so the WebSocket must answer where the pages and the API
 * do. serverless-offline serves them on two ports; this listener reads the request head of each new
 * connection, sends a WebSocket handshake (`Upgrade: websocket`) to serverless-offline's WebSocket port and
 * everything else to its HTTP port, and from then on only copies bytes both ways: no HTTP parsing, so a
 * keep-alive connection's later requests cost one more local TCP hop and nothing else
 * (docs/live-updates.md has the measurement). A connection's first request decides: browsers open a new
 * connection for each WebSocket.
 */
export interface SharedPort {
  port: number;
  close(): Promise<void>;
}

/** The largest request head read before routing; a longer one goes to the HTTP port as it is. */
const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const UPGRADE = /\r\nupgrade:[ \t]*websocket[ \t]*\r\n/i;

export function isWebSocketHandshake(head: Buffer): boolean {
  const end = head.indexOf(HEAD_END);
  const text = head.subarray(0, end === -1 ? head.length : end + 2).toString('latin1');
  return text.startsWith('GET ') && UPGRADE.test(text);
}

/**
 * The client's own loopback address, for the upstream connection's local end: serverless-offline takes the
 * event's `sourceIp` from the connection it accepts, and the login throttle counts per address
 * (docs/auth.md). Any 127.0.0.0/8 address can be bound on loopback; other clients keep the default.
 */
export function loopbackSource(address: string | undefined): string | undefined {
  const v4 = address?.replace(/^::ffff:/, '');
  return v4 && /^127\.\d+\.\d+\.\d+$/.test(v4) ? v4 : undefined;
}

function splice(client: net.Socket, head: Buffer, host: string, port: number): void {
  const upstream = net.connect({
    host,
    port,
    noDelay: true,
    localAddress: loopbackSource(client.remoteAddress),
  });
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  upstream.once('connect', () => {
    upstream.write(head);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
  upstream.on('error', close);
  client.on('error', close);
  upstream.once('close', close);
  client.once('close', close);
}

export function startSharedPort(options: {
  port: number;
  host: string;
  httpPort: number;
  websocketPort: number;
}): Promise<SharedPort> {
  const open = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true }, (client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.indexOf(HEAD_END) === -1 && head.length < MAX_HEAD_BYTES) return;
      client.off('data', onData);
      client.pause();
      const target = isWebSocketHandshake(head) ? options.websocketPort : options.httpPort;
      splice(client, head, options.host, target);
    };
    client.on('data', onData);
    client.on('error', () => client.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve({
        port: options.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Open keep-alive and WebSocket connections would hold close() forever.
            for (const s of open) s.destroy();
          }),
      });
    });
  });
}
