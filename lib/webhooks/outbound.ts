import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { setting } from '#lib/settings.ts';

/**
 * Outgoing webhook calls (docs/webhooks.md): http(s) only; the host name is resolved first and every
 * address it resolves to must be a public unicast one (no loopback, private, link-local, carrier-grade
 * NAT, multicast, reserved... addresses), unless `WEBHOOK_ALLOW_PRIVATE=true`; the connection then goes to
 * an address that was checked (no second lookup a rebinding DNS could answer differently); redirects are
 * not followed; the whole call (lookup, connect, answer) stops after `WEBHOOK_TIMEOUT_MS` (5000).
 */
export class RefusedTarget extends Error {}

export const allowPrivateTargets = () => setting('WEBHOOK_ALLOW_PRIVATE');
export const webhookTimeoutMs = () => setting('WEBHOOK_TIMEOUT_MS');

/**
 * IPv6's `::/8`, reserved by the IETF: it holds `::1`, `::`, the IPv4-mapped `::ffff:0:0/96` (read as its
 * IPv4 address first) and the deprecated IPv4-compatible `::/96` (`::7f00:1` is `::127.0.0.1`, which some
 * stacks route to the embedded IPv4 address). ipaddr.js calls the last `unicast`; no public host is there.
 */
const IETF_RESERVED_V6 = ipaddr.parseCIDR('::/8');

/** Why `address` may not be called, or null when it is a public unicast address. */
export function privateRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv6' && parsed.match(IETF_RESERVED_V6)) return 'reserved (IPv4-compatible or ::/8)';
  return null;
}

export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Parses `target`, resolves its host and checks every address (RefusedTarget when one is not public). */
export async function resolveTarget(
  target: string,
  allowPrivate = allowPrivateTargets(),
): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new RefusedTarget(`not a URL: ${target.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RefusedTarget(`only http and https URLs are called, not ${url.protocol}`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = ipaddr.isValid(host)
    ? [{ address: host, family: host.includes(':') ? 6 : 4 }]
    : await lookup(host, { all: true, verbatim: true });
  if (!addresses.length) throw new RefusedTarget(`${host} resolves to no address`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const range = privateRange(a.address);
      if (range) {
        throw new RefusedTarget(
          `${host} resolves to ${a.address} (${range}): private targets need WEBHOOK_ALLOW_PRIVATE=true`,
        );
      }
    }
  }
  return { url, address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Sends one request to a checked target; resolves with the status (the answer is read and dropped). */
export async function send(req: OutboundRequest, timeoutMs = webhookTimeoutMs()): Promise<number> {
  const signal = AbortSignal.timeout(timeoutMs);
  const aborted = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(new Error(`timed out after ${timeoutMs} ms`)), {
      once: true,
    }),
  );
  aborted.catch(() => {});
  const target = await Promise.race([resolveTarget(req.url), aborted]);
  const pinned: LookupFunction = (_host, options, done) => {
    if ((options as { all?: boolean }).all) done(null, [{ address: target.address, family: target.family }]);
    else done(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return Promise.race([
    aborted,
    new Promise<number>((resolve, reject) => {
      const r = client.request(
        target.url,
        {
          method: req.method,
          // Node sends a DELETE body only with its length given.
          headers:
            req.body === undefined
              ? req.headers
              : { ...req.headers, 'content-length': Buffer.byteLength(req.body) },
          lookup: pinned,
          signal,
        },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      r.on('error', reject);
      r.end(req.body);
    }),
  ]);
}
