// Seeds the service under test through its own JSON API (not through the MMGIS client):
// the first admin, two geodatasets (points for a GeoJSON layer, polygons for a vector-tile layer), a
// dataset linked from the points, an API token, the mission "Harness", a webhook, and a small DEM GeoTIFF under the
// service's MISSION_DATA_DIR for the Measure tool.
//   SERVICE_URL, MISSION_DATA_DIR (where the service reads rasters; see the service's docs/utils.md)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const F = require('./fixtures.js');

const SERVICE = process.env.SERVICE_URL;
const DATA = process.env.MISSION_DATA_DIR;

let cookie = '';
async function call(method, p, body) {
  const res = await fetch(SERVICE + p, {
    method,
    headers: { 'content-type': 'application/json', cookie },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const set = res.headers.getSetCookie ? res.headers.getSetCookie() : [];
  for (const c of set) if (/^MMGISSession=/.test(c)) cookie = c.split(';')[0];
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, json, text };
}
async function must(what, method, p, body) {
  const r = await call(method, p, body);
  if (r.status >= 300 || (r.json && r.json.status === 'failure')) {
    throw new Error(`${what}: ${method} ${p} -> HTTP ${r.status} ${r.text.slice(0, 300)}`);
  }
  return r;
}

// A tiny geographic (EPSG:4326) float32 GeoTIFF, one strip, no compression.
function geotiff(width, height, west, north, res, valueAt) {
  const entries = [];
  const extra = [];
  let extraOff = 0;
  const dataBytes = width * height * 4;
  const ifdOff = 8;
  const nEntries = 14;
  const ifdLen = 2 + nEntries * 12 + 4;
  const extraStart = ifdOff + ifdLen;
  const addExtra = (buf) => { const off = extraStart + extraOff; extra.push(buf); extraOff += buf.length; return off; };
  const doubles = (arr) => { const b = Buffer.alloc(arr.length * 8); arr.forEach((v, i) => b.writeDoubleLE(v, i * 8)); return b; };
  const shorts = (arr) => { const b = Buffer.alloc(arr.length * 2); arr.forEach((v, i) => b.writeUInt16LE(v, i * 2)); return b; };
  const scaleOff = addExtra(doubles([res, res, 0]));
  const tieOff = addExtra(doubles([0, 0, 0, west, north, 0]));
  const keys = [1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326];
  const keyOff = addExtra(shorts(keys));
  const dataOff = extraStart + extraOff;
  // tag, type (3 short, 4 long, 12 double), count, value-or-offset
  entries.push([256, 3, 1, width], [257, 3, 1, height], [258, 3, 1, 32], [259, 3, 1, 1], [262, 3, 1, 1],
    [273, 4, 1, dataOff], [277, 3, 1, 1], [278, 3, 1, height], [279, 4, 1, dataBytes], [284, 3, 1, 1],
    [339, 3, 1, 3], [33550, 12, 3, scaleOff], [33922, 12, 6, tieOff], [34735, 3, keys.length, keyOff]);
  const head = Buffer.alloc(8);
  head.write('II', 0, 'latin1'); head.writeUInt16LE(42, 2); head.writeUInt32LE(ifdOff, 4);
  const ifd = Buffer.alloc(ifdLen);
  ifd.writeUInt16LE(nEntries, 0);
  entries.forEach(([tag, type, count, v], i) => {
    const o = 2 + i * 12;
    ifd.writeUInt16LE(tag, o); ifd.writeUInt16LE(type, o + 2); ifd.writeUInt32LE(count, o + 4);
    if (type === 3 && count === 1) ifd.writeUInt16LE(v, o + 8); else ifd.writeUInt32LE(v, o + 8);
  });
  ifd.writeUInt32LE(0, ifdLen - 4);
  const data = Buffer.alloc(dataBytes);
  for (let r = 0; r < height; r++) for (let c = 0; c < width; c++) data.writeFloatLE(valueAt(r, c), (r * width + c) * 4);
  return Buffer.concat([head, ifd, ...extra, data]);
}

async function main() {
  await must('first_signup', 'POST', '/api/users/first_signup', F.ADMIN);
  await must('login', 'POST', '/api/users/login', F.ADMIN);
  for (const g of F.GEODATASETS) {
    await must(`geodatasets/recreate ${g.name}`, 'POST', '/api/geodatasets/recreate',
      { name: g.name, geojson: JSON.stringify({ type: 'FeatureCollection', features: g.features }) });
  }
  await must('datasets/recreate', 'POST', '/api/datasets/recreate', { name: F.DATASET.name, csv: F.DATASET.rows });
  await must('longtermtoken/generate', 'POST', '/api/longtermtoken/generate', { name: F.TOKEN_NAME, period: 'never' });
  await must('configure/add', 'POST', '/api/configure/add', { mission: F.MISSION, config: F.config() });
  await must('webhooks/save', 'POST', '/api/webhooks/save', { config: JSON.stringify({ webhooks: [F.WEBHOOK] }) });
  if (DATA) {
    const dir = path.join(DATA, F.MISSION, 'Data');
    fs.mkdirSync(dir, { recursive: true });
    // 0..1 degrees lon/lat, 64x64, elevation rising west->east and south->north (100 .. ~226 m)
    fs.writeFileSync(path.join(dir, 'dem.tif'), geotiff(64, 64, 0, 1, 1 / 64, (r, c) => 100 + c + (63 - r)));
  }
  console.log('seeded');
}
main().catch((e) => { console.error(String(e && e.message || e)); process.exit(1); });
