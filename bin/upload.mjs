#!/usr/bin/env node
// `npm run upload -- FILE --name NAME [--action append] [--start-prop P] ...`: loads a (large) GeoJSON
// file into a geodataset through the upload path of docs/uploads.md: (1) POST /api/geodatasets/upload for a
// presigned URL, (2) PUT the file there with a progress bar on stderr, (3) poll the ingest job and print
// its final state as JSON on stdout. Exit code 0 when the job succeeded, 1 when it failed, 2 on bad usage.
// Plain Node (fetch, and node:http for the PUT), no build step.
import { createReadStream, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';

const USAGE = `Usage: npm run upload -- FILE --name NAME [options]
  --name NAME              geodataset name (required)
  --action recreate|append recreate (default) replaces the dataset; append adds to it
  --start-prop P           property holding the start time (dot path)
  --end-prop P             property holding the end time
  --group-id-prop P        property (or comma-separated properties) for group_id
  --feature-id-prop P      property (or comma-separated properties) for feature_id
  --filename F             filename recorded in the entry (default: FILE's name)
  --url URL                the API (default http://localhost:8888)
  --token T                an admin API token (default: env MMGIS_TOKEN)
  --timeout SECONDS        how long to wait for the ingest (default 3600)
  --quiet                  no progress on stderr`;

function fail(message, code = 2) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      action: { type: 'string', default: 'recreate' },
      'start-prop': { type: 'string' },
      'end-prop': { type: 'string' },
      'group-id-prop': { type: 'string' },
      'feature-id-prop': { type: 'string' },
      filename: { type: 'string' },
      url: { type: 'string', default: 'http://localhost:8888' },
      token: { type: 'string' },
      timeout: { type: 'string', default: '3600' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (e) {
  fail(`${e.message}\n${USAGE}`);
}
const { values: o, positionals } = args;
if (o.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (positionals.length !== 1 || !o.name) fail(USAGE);
const file = positionals[0];
const token = o.token ?? process.env.MMGIS_TOKEN;
if (!token) fail('An admin token is required: --token T or the environment variable MMGIS_TOKEN.');
let size;
try {
  size = statSync(file).size;
} catch (e) {
  fail(`Cannot read ${file}: ${e.message}`);
}
const api = o.url.replace(/\/+$/, '');
const auth = { authorization: `Bearer ${token}` };
const quiet = o.quiet;
const tty = process.stderr.isTTY;

function mb(n) {
  return (n / 1e6).toFixed(1);
}

/** One status line on stderr: redrawn in place on a terminal, every 10 % otherwise. */
function progress(label, done, total) {
  if (quiet) return;
  const pct = total ? Math.min(100, Math.floor((done / total) * 100)) : 0;
  const width = 30;
  const fill = Math.round((pct / 100) * width);
  const line = `${label} [${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${String(pct).padStart(3)}% ${mb(done)}/${mb(total)} MB`;
  if (tty) process.stderr.write(`\r${line}`);
  else if (pct >= (progress.next ?? 0) || done === total) {
    process.stderr.write(`${line}\n`);
    progress.next = pct - (pct % 10) + 10;
  }
}

async function json(res) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 300) };
  }
}

// 1. An upload job and its presigned URL.
const request = {
  name: o.name,
  action: o.action,
  startProp: o['start-prop'],
  endProp: o['end-prop'],
  groupIdProp: o['group-id-prop'],
  featureIdProp: o['feature-id-prop'],
  filename: o.filename ?? basename(file),
  size,
};
let res;
try {
  res = await fetch(`${api}/api/geodatasets/upload`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
} catch (e) {
  fail(`Cannot reach ${api}: ${e.cause?.message ?? e.message}`, 1);
}
const created = await json(res);
if (res.status !== 201) fail(`The upload was refused (${res.status}): ${created.message}`, 1);
const { job, upload } = created.body;
if (!quiet) process.stderr.write(`job ${job.id}: uploading ${file} (${mb(size)} MB)\n`);

// 2. PUT the file, counting what the request takes. node:http's request is piped from the file, so the
// CLI holds about one chunk whatever the file's size: fetch's streamed body did not wait for the socket
// (an 800 MB PUT to a slow server held 840 MB; this 84 MB).
let sent = 0;
const counter = new Transform({
  transform(chunk, _enc, done) {
    sent += chunk.length;
    progress('upload', sent, size);
    done(null, chunk);
  },
});
const target = new URL(upload.url);
const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
  method: upload.method,
  headers: { ...upload.headers, 'content-length': String(size) },
});
const answered = new Promise((resolve, reject) => {
  req.on('response', resolve);
  req.on('error', reject);
});
const sending = pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), counter, req);
const put = await answered.catch((e) => fail(`\nThe upload failed: ${e.message}`, 1));
// A refusal may come before the whole file went (an expired URL: 403); its answer says more than the
// broken pipe that follows it.
await sending.catch((e) => {
  if (put.statusCode >= 200 && put.statusCode < 300) fail(`\nThe upload failed: ${e.message}`, 1);
});
let putText = '';
for await (const chunk of put) putText += chunk;
if (tty && !quiet) process.stderr.write('\n');
if (put.statusCode < 200 || put.statusCode >= 300)
  fail(`The upload failed: S3 answered ${put.statusCode} ${putText.slice(0, 300)}`, 1);

// 3. Wait for the ingest: polled every quarter second for its first half minute (a small file's result
// shows at once), then once a second.
const polling = Date.now();
const deadline = polling + Number(o.timeout) * 1000;
let last = '';
for (;;) {
  const r = await fetch(`${api}/api/geodatasets/jobs/${job.id}`, { headers: auth });
  const body = await json(r);
  if (r.status !== 200) fail(`Cannot read the job (${r.status}): ${body.message}`, 1);
  const j = body.body.job;
  if (j.state === 'succeeded' || j.state === 'failed') {
    if (tty && last && !quiet) process.stderr.write('\n');
    process.stdout.write(`${JSON.stringify(j, null, 2)}\n`);
    process.exit(j.state === 'succeeded' ? 0 : 1);
  }
  const line = `ingest: ${j.state}${j.processed != null ? `, ${j.processed} features` : ''}`;
  if (!quiet && line !== last) process.stderr.write(tty ? `\r${line}   ` : `${line}\n`);
  last = line;
  if (Date.now() > deadline) fail(`\nThe job is still ${j.state} after ${o.timeout} s (job ${job.id}).`, 1);
  await new Promise((ok) => setTimeout(ok, Date.now() - polling < 30_000 ? 250 : 1000));
}
