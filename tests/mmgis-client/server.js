// Harness server: serves the built MMGIS v3 front end (map client and React configure app) the way
// MMGIS's own express server does (MMGIS's server.js and API/Backend/Config/setup.js) and proxies every
// API call to the service under test, on one origin.
//
//   node server.js   (environment below)
//   HARNESS_PORT   port to listen on (127.0.0.1)
//   SERVICE_URL    the service under test, e.g. http://127.0.0.1:16003
//   MMGIS_BUILT    the built MMGIS tree (has build/, configure/build/, public/, views/, node_modules/pug)
//   NET_LOG        file to append one JSON line per proxied request to (optional)
//   REWRITE_API=1  rewrite /API/... to /api/... before proxying (off by default: the client's real
//                  requests go to the service unchanged, so the report shows what MMGIS would really do)
//   MMGIS_AUTH     what the page tells the client (mmgisglobal.AUTH), default "local" like the service
//   MMGIS_WEBSOCKETS  when the pages get ENABLE_MMGIS_WEBSOCKETS / ENABLE_CONFIG_WEBSOCKETS = "true" (they then
//                  open ws://<this host>/, forwarded to the service's own port and path): `cookie` (default)
//                  for a browser whose requests carry the cookie harness_ws=1 (the live-update flow sets it,
//                  so the other flows see the pages as before), `1` always, `0` never
//
// Pages (MMGIS renders them with pug; we use MMGIS's own pug and templates):
//   GET /               ensureUser: logged in (asked of the service: GET /api/users/logged_in with the
//                       browser's cookie) -> build/index.pug, else views/login.pug
//   GET /configure-beta ensureAdmin(true): an admin session (GET /api/users/list answers 200) ->
//                       configure/build/index.pug, else views/adminlogin.pug
// Static folders: the same mounts as MMGIS's server.js.
'use strict';
const http = require('node:http');
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const PORT = Number(process.env.HARNESS_PORT || 16004);
const SERVICE = new URL(process.env.SERVICE_URL || 'http://127.0.0.1:16003');
const ROOT = process.env.MMGIS_BUILT;
const NET_LOG = process.env.NET_LOG || '';
const REWRITE = process.env.REWRITE_API === '1';
const AUTH = process.env.MMGIS_AUTH || 'local';
const WEBSOCKETS_MODE = process.env.MMGIS_WEBSOCKETS || 'cookie';
const websockets = (cookie) =>
  WEBSOCKETS_MODE === '1' || (WEBSOCKETS_MODE === 'cookie' && /(?:^|;\s*)harness_ws=1(?:;|$)/.test(cookie)) ? 'true' : undefined;
if (!ROOT || !fs.existsSync(path.join(ROOT, 'build', 'index.pug'))) {
  console.error('MMGIS_BUILT must name a built MMGIS tree (build/index.pug missing)');
  process.exit(2);
}
// MMGIS's own pug when the tree has its node_modules, else the harness's (same major version).
const pug = (() => { try { return require(path.join(ROOT, 'node_modules', 'pug')); } catch { return require('pug'); } })();
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

const STATIC = [
  ['/build', 'build'], ['/documentation', 'documentation'], ['/docs/helps', 'docs/helps'],
  ['/README.md', 'README.md'], ['/config/login', 'config/login'], ['/config/css', 'config/css'],
  ['/config/js', 'config/js'], ['/config/pre', 'config/pre'], ['/config/fonts', 'config/fonts'],
  ['/configure/build', 'configure/build'], ['/configure/public', 'configure/public'],
  ['/examples', 'examples'], ['/public', 'public'], ['/Missions', 'Missions'],
];
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'application/javascript', '.mjs': 'application/javascript',
  '.css': 'text/css', '.json': 'application/json', '.png': 'image/png', '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.svg': 'image/svg+xml', '.ico': 'image/x-icon',
  '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.eot': 'application/vnd.ms-fontobject',
  '.md': 'text/markdown', '.wasm': 'application/wasm', '.map': 'application/json', '.txt': 'text/plain',
  '.tif': 'image/tiff', '.pdf': 'application/pdf', '.csv': 'text/csv', '.geojson': 'application/json',
};

const templates = new Map();
function render(rel, locals) {
  let fn = templates.get(rel);
  if (!fn) {
    fn = pug.compileFile(path.join(ROOT, rel), { basedir: path.join(ROOT, 'views') });
    templates.set(rel, fn);
  }
  return fn(locals);
}

function logNet(entry) {
  if (!NET_LOG) return;
  try { fs.appendFileSync(NET_LOG, JSON.stringify(entry) + '\n'); } catch { /* ignore */ }
}

// Ask the service something on behalf of the page request (with the browser's cookie).
function ask(method, p, cookie) {
  return new Promise((resolve) => {
    const req = http.request({ host: SERVICE.hostname, port: SERVICE.port, method, path: p,
      headers: { cookie: cookie || '', accept: 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        let json = null;
        try { json = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, json });
      });
    });
    req.on('error', () => resolve({ status: 0, json: null }));
    req.setTimeout(15000, () => req.destroy());
    req.end();
  });
}

async function session(cookie) {
  const li = await ask('GET', '/api/users/logged_in', cookie);
  const loggedIn = !!(li.json && li.json.body && li.json.body.loggedIn);
  if (!loggedIn) return { loggedIn: false, user: null, admin: false };
  const list = await ask('GET', '/api/users/list', cookie);
  return { loggedIn: true, user: li.json.body.user, admin: list.status === 200 && list.json && list.json.status !== 'failure' };
}

function send(res, status, type, body, extra) {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...(extra || {}) });
  res.end(body);
}

async function page(req, res, url) {
  const cookie = req.headers.cookie || '';
  const s = AUTH === 'local' ? await session(cookie) : { loggedIn: true, user: 'guest', admin: true };
  if (url.pathname === '/') {
    if (!s.loggedIn) return send(res, 200, TYPES['.html'], render('views/login.pug', { user: null, CLEARANCE_NUMBER: 'CL##-####' }));
    return send(res, 200, TYPES['.html'], render('build/index.pug', {
      user: s.user, permission: s.admin ? '111' : '001', groups: JSON.stringify([]), AUTH, NODE_ENV: 'production',
      VERSION, FORCE_CONFIG_PATH: undefined, CLEARANCE_NUMBER: undefined, ENABLE_MMGIS_WEBSOCKETS: websockets(cookie),
      MAIN_MISSION: undefined, SKIP_CLIENT_INITIAL_LOGIN: undefined, THIRD_PARTY_COOKIES: undefined,
      PORT: String(PORT), ROOT_PATH: '', WEBSOCKET_ROOT_PATH: undefined, HOSTS: JSON.stringify({}),
    }));
  }
  // /configure-beta (the React configure app of MMGIS 3.0.0)
  if (!s.admin) return send(res, 200, TYPES['.html'], render('views/adminlogin.pug', { user: null }));
  return send(res, 200, TYPES['.html'], render('configure/build/index.pug', {
    user: null, AUTH, NODE_ENV: 'production', PORT: String(PORT), ENABLE_CONFIG_WEBSOCKETS: websockets(cookie),
    ENABLE_CONFIG_OVERRIDE: undefined, ROOT_PATH: '', WEBSOCKET_ROOT_PATH: '',
  }));
}

function serveStatic(req, res, url) {
  let p;
  try { p = decodeURIComponent(url.pathname); } catch { return false; }
  for (const [mount, dir] of STATIC) {
    if (p !== mount && !p.startsWith(mount + '/')) continue;
    const base = path.join(ROOT, dir);
    const file = path.normalize(path.join(base, p.slice(mount.length)));
    if (file !== base && !file.startsWith(base + path.sep)) break;
    let st;
    try { st = fs.statSync(file); } catch { break; }
    const f = st.isDirectory() ? path.join(file, 'index.html') : file;
    if (!fs.existsSync(f)) break;
    res.writeHead(200, { 'content-type': TYPES[path.extname(f).toLowerCase()] || 'application/octet-stream',
      'content-length': fs.statSync(f).size });
    if (req.method === 'HEAD') return res.end(), true;
    fs.createReadStream(f).pipe(res);
    return true;
  }
  return false;
}

function proxy(req, res, url) {
  let target = url.pathname + url.search;
  if (REWRITE) target = target.replace(/^\/api\//i, '/api/');
  const started = Date.now();
  const reqChunks = [];
  let reqLen = 0;
  const headers = { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress || '127.0.0.1', 'x-forwarded-proto': 'http' };
  const up = http.request({ host: SERVICE.hostname, port: SERVICE.port, method: req.method, path: target, headers }, (r) => {
    const resChunks = [];
    let resLen = 0;
    res.writeHead(r.statusCode, r.statusMessage, r.headers);
    r.on('data', (c) => { if (resLen < 4000) resChunks.push(c); resLen += c.length; res.write(c); });
    r.on('end', () => {
      res.end();
      const type = String(r.headers['content-type'] || '');
      let resBuf = Buffer.concat(resChunks);
      const enc = String(r.headers['content-encoding'] || '');
      try {
        if (enc === 'gzip') resBuf = zlib.gunzipSync(resBuf, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
        else if (enc === 'br') resBuf = zlib.brotliDecompressSync(resBuf);
        else if (enc === 'deflate') resBuf = zlib.inflateSync(resBuf, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
      } catch { /* partial capture */ }
      const textual = /json|text|xml|javascript/.test(type) || type === '';
      logNet({ t: new Date(started).toISOString(), ms: Date.now() - started, method: req.method, url: url.pathname + url.search,
        forwarded: target, status: r.statusCode, reqType: req.headers['content-type'] || '',
        reqBody: Buffer.concat(reqChunks).toString('utf8').slice(0, 1500), resType: type, resBytes: resLen,
        resBody: textual ? resBuf.toString('utf8').slice(0, 1500) : `<${resLen} bytes ${type}>` });
    });
  });
  up.on('error', (e) => {
    logNet({ t: new Date(started).toISOString(), method: req.method, url: url.pathname + url.search, forwarded: target, status: 502, error: String(e) });
    if (!res.headersSent) send(res, 502, 'application/json', JSON.stringify({ status: 'failure', message: 'harness proxy: ' + e.message }));
    else res.destroy();
  });
  req.on('data', (c) => { if (reqLen < 4000) reqChunks.push(c); reqLen += c.length; up.write(c); });
  req.on('end', () => up.end());
}

const server = http.createServer((req, res) => {
  let url;
  try { url = new URL(req.url, 'http://harness'); } catch { return send(res, 400, 'text/plain', 'bad url'); }
  const first = url.pathname.split('/')[1] || '';
  if (first.toLowerCase() === 'api') return proxy(req, res, url);
  if ((req.method === 'GET' || req.method === 'HEAD') && (url.pathname === '/' || url.pathname === '/configure-beta' || url.pathname.startsWith('/configure-beta/'))) {
    return page(req, res, url).catch((e) => send(res, 500, 'text/plain', 'harness render error: ' + (e && e.stack || e)));
  }
  if ((req.method === 'GET' || req.method === 'HEAD') && serveStatic(req, res, url)) return;
  logNet({ t: new Date().toISOString(), method: req.method, url: url.pathname + url.search, status: 404, note: 'harness: no such page or file' });
  send(res, 404, 'text/plain', 'Not found (harness): ' + url.pathname);
});
// WebSocket handshakes (the pages open ws://<this host>/) go to the service unchanged, on its own port and
// path, as a reverse proxy in front of MMGIS would pass them; then bytes are copied both ways.
server.on('upgrade', (req, socket, head) => {
  const up = net.connect({ host: SERVICE.hostname, port: Number(SERVICE.port) });
  const close = () => { socket.destroy(); up.destroy(); };
  up.on('error', (e) => { logNet({ t: new Date().toISOString(), method: 'UPGRADE', url: req.url, status: 502, error: String(e) }); close(); });
  socket.on('error', close);
  up.once('connect', () => {
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    up.write(lines.join('\r\n') + '\r\n\r\n');
    if (head && head.length) up.write(head);
    up.pipe(socket);
    socket.pipe(up);
    logNet({ t: new Date().toISOString(), method: 'UPGRADE', url: req.url, status: 101, note: 'websocket forwarded' });
  });
  up.once('close', close);
  socket.once('close', close);
});
server.listen(PORT, '127.0.0.1', () => console.log(`harness listening on http://127.0.0.1:${PORT} -> ${SERVICE.origin}${REWRITE ? ' (REWRITE_API=1)' : ''}`));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
