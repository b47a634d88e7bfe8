/**
 * The load bench's HTTP client for the requests it times: `node:http` over keep-alive connections, with a
 * browser's `Accept-Encoding` and the body decompressed by zlib off the event loop, as a browser's network
 * stack does natively in a process of its own.
 *
 * Node's `fetch` (undici behind WHATWG streams) costs the client several times more JavaScript per request:
 * on the 2-core development machine it alone halved what the service seemed to answer at 8 clients
 * (905.6 against 1,795.4 answers/s for `GET /api/ogc/conformance`, the same service, one run after the
 * other; docs/benchmarks.md). The bench, the service and the database share the two cores, so the client's
 * cost came out of the service's figures, and a browser has no such cost on the service's cores.
 */
import http from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const MAX_SOCKETS = 256;
const agent = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });

const decoders: Record<string, (b: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * One request; resolves with the status, the headers and the whole (decompressed) body. A request sent on
 * a kept-alive connection that the server closed meanwhile (its idle timeout) is sent again, as Node's
 * documentation advises and as browsers do.
 */
export async function request(url: string, init: HttpInit = {}): Promise<HttpAnswer> {
  // Every idle connection of the pool may have been closed: each failed try discards one.
  for (let tries = 1; ; tries++) {
    try {
      return await once(url, init);
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { reusedSocket?: boolean };
      if (!(err.reusedSocket && err.code === 'ECONNRESET') || tries > MAX_SOCKETS) throw e;
    }
  }
}

function once(url: string, init: HttpInit): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : Buffer.from(init.body);
    const req = http.request(
      url,
      {
        agent,
        method: init.method ?? 'GET',
        headers: {
          'accept-encoding': 'gzip, deflate, br',
          ...(body ? { 'content-length': String(body.length) } : {}),
          ...init.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          const decode = decoders[String(res.headers['content-encoding'] ?? '')];
          const done = (b: Buffer) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b });
          if (decode) decode(raw).then(done, reject);
          else done(raw);
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException & { reusedSocket?: boolean }) => {
      e.reusedSocket = req.reusedSocket;
      reject(e);
    });
    req.end(body);
  });
}
