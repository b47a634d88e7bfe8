/**
 * Seeded benchmark data (docs/benchmarks.md, reused by the read bench): 200,000 points with an int, a float, a string,
 * an ISO time and one of 1,000 group ids, half of them in a dense cluster; 20,000 ten-vertex polygons.
 * Plain functions, deterministic for a given seed.
 */
import { createWriteStream } from 'node:fs';

/** A small, fast seeded PRNG (mulberry32): numbers in [0, 1). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The dense area: half the points fall within about a degree of this center. */
export const CLUSTER = { lon: -117.5, lat: 34.2, radiusDeg: 1 };
export const GROUPS = 1000;
const T0 = Date.UTC(2024, 0, 1);
const YEAR_MS = 366 * 86400000;

export interface PointProps {
  /** int */
  n: number;
  /** float */
  f: number;
  /** string */
  s: string;
  /** ISO 8601 time */
  t: string;
  /** group id, one of 1,000 */
  g: string;
}

export interface Feature<P = object> {
  type: 'Feature';
  geometry: { type: string; coordinates: unknown };
  properties: P;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Feature `i` of the point set (deterministic per (seed, i) sequence when iterated in order). */
export function* points(n = 200_000, seed = 1): Generator<Feature<PointProps>> {
  const r = random(seed);
  for (let i = 0; i < n; i++) {
    let lon: number;
    let lat: number;
    if (r() < 0.5) {
      const a = r() * 2 * Math.PI;
      const d = CLUSTER.radiusDeg * Math.sqrt(r()) * r();
      lon = CLUSTER.lon + d * Math.cos(a);
      lat = CLUSTER.lat + d * Math.sin(a);
    } else {
      lon = r() * 360 - 180;
      lat = r() * 170 - 85;
    }
    yield {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [round6(lon), round6(lat)] },
      properties: {
        n: Math.floor(r() * 1_000_000),
        f: round6(r() * 1000 - 500),
        s: `name-${Math.floor(r() * 100_000)}`,
        t: new Date(T0 + Math.floor(r() * YEAR_MS)).toISOString(),
        g: `g${Math.floor(r() * GROUPS)}`,
      },
    };
  }
}

/** Ten-vertex polygons (a closed ring of 11 positions) around random centers, counterclockwise. */
export function* polygons(n = 20_000, seed = 2): Generator<Feature<PointProps>> {
  const r = random(seed);
  for (let i = 0; i < n; i++) {
    const cx = r() * 340 - 170;
    const cy = r() * 160 - 80;
    const rad = 0.01 + r() * 0.5;
    const ring: number[][] = [];
    for (let k = 0; k < 10; k++) {
      const a = (k / 10) * 2 * Math.PI;
      const rr = rad * (0.7 + 0.3 * r());
      ring.push([round6(cx + rr * Math.cos(a)), round6(cy + rr * Math.sin(a))]);
    }
    ring.push(ring[0]);
    yield {
      type: 'Feature',
      geometry: { type: 'Polygon', coordinates: [ring] },
      properties: {
        n: Math.floor(r() * 1_000_000),
        f: round6(r() * 1000 - 500),
        s: `poly-${i}`,
        t: new Date(T0 + Math.floor(r() * YEAR_MS)).toISOString(),
        g: `g${Math.floor(r() * GROUPS)}`,
      },
    };
  }
}

/** A whole FeatureCollection as an object (small sets; tests). */
export function featureCollection(features: Iterable<Feature>): {
  type: 'FeatureCollection';
  features: Feature[];
} {
  return { type: 'FeatureCollection', features: [...features] };
}

/** The FeatureCollection JSON text of `features`, built without holding the objects. */
export function featureCollectionText(features: Iterable<Feature>): string {
  const parts: string[] = [];
  for (const f of features) parts.push(JSON.stringify(f));
  return `{"type":"FeatureCollection","features":[${parts.join(',')}]}`;
}

/** Writes the FeatureCollection to `path` as a stream (the parent of a memory measurement stays small). */
export async function writeFeatureCollection(path: string, features: Iterable<Feature>): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  const write = (s: string) =>
    new Promise<void>((ok, fail) => {
      bytes += Buffer.byteLength(s);
      out.write(s, (e) => (e ? fail(e) : ok()));
    });
  await write('{"type":"FeatureCollection","features":[');
  let first = true;
  let chunk: string[] = [];
  for (const f of features) {
    chunk.push((first ? '' : ',') + JSON.stringify(f));
    first = false;
    if (chunk.length === 5000) {
      await write(chunk.join(''));
      chunk = [];
    }
  }
  await write(`${chunk.join('')}]}`);
  await new Promise<void>((ok) => out.end(ok));
  return bytes;
}
