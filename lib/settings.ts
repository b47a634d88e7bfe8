/**
 * Settings: every environment variable the service reads, declared once here with its type, default,
 * bounds and meaning, and read only through `setting(name)`. It is one piece over 300 lines because it is
 * the one list: split, a variable could again be declared in two places. README.md's settings table is
 * generated from it (scripts/settingsTable.mjs; tests/unit/settings.test.ts fails when they differ).
 *
 * Reads are lazy (at call time: tests and `npm start` change `process.env` between calls). An unset and an
 * empty variable are alike (the default applies); a number that is not finite, negative, or zero where zero
 * is not allowed is as unset: a bad setting falls back to its default rather than failing a cold start.
 * Functions that take an `env` object for their tests pass it on: `setting(name, env)`.
 */

/** Where variables are read from: `process.env` unless a function is handed its own. */
export type Env = Readonly<Record<string, string | undefined>>;

interface Common {
  /** One line: what the variable governs. */
  meaning: string;
  /** The default as README shows it, when the value alone would mislead (e.g. another default deployed). */
  shown?: string;
}
export interface NumberSetting<D extends number | undefined = number | undefined> extends Common {
  kind: 'number';
  default: D;
  /** 0 is a valid value (otherwise only positive numbers are). */
  zero?: boolean;
  /** Rounded down to an integer. */
  integer?: boolean;
  /** Larger values are clamped to this. */
  max?: number;
}
export interface TextSetting<D extends string | undefined = string | undefined> extends Common {
  kind: 'text';
  default: D;
}
/** One of `values`; anything else is the default. */
export interface ChoiceSetting<V extends string = string> extends Common {
  kind: 'choice';
  values: readonly V[];
  default: V;
}
/** `true`/`false`: only the text opposite to the default changes it (`ignoreCase`: in any case). */
export interface FlagSetting extends Common {
  kind: 'flag';
  default: boolean;
  ignoreCase?: boolean;
}
/** A comma-separated list, items trimmed, empty items dropped. */
export interface ListSetting extends Common {
  kind: 'list';
}
export type Declaration = NumberSetting | TextSetting | ChoiceSetting | FlagSetting | ListSetting;

type NumberOptions = Pick<NumberSetting, 'zero' | 'integer' | 'max' | 'shown'>;
const num = <D extends number | undefined>(
  value: D,
  meaning: string,
  options: NumberOptions = {},
): NumberSetting<D> => ({ kind: 'number', default: value, meaning, ...options });
const int = <D extends number | undefined>(value: D, meaning: string, options: NumberOptions = {}) =>
  num(value, meaning, { integer: true, ...options });
const text = <D extends string | undefined>(value: D, meaning: string, shown?: string): TextSetting<D> => ({
  kind: 'text',
  default: value,
  meaning,
  ...(shown === undefined ? {} : { shown }),
});
const choice = <const V extends string>(
  values: readonly V[],
  value: NoInfer<V>,
  meaning: string,
): ChoiceSetting<V> => ({
  kind: 'choice',
  values,
  default: value,
  meaning,
});
const flag = (
  value: boolean,
  meaning: string,
  options: Pick<FlagSetting, 'ignoreCase'> = {},
): FlagSetting => ({
  kind: 'flag',
  default: value,
  meaning,
  ...options,
});
const list = (meaning: string): ListSetting => ({ kind: 'list', meaning });

const MiB = 1024 * 1024;

/** Every variable, in the order of README's table. */
// biome-ignore format: one line per variable, read as a table
export const SETTINGS = {
  // npm start (local/devServer.ts)
  PORT: int(8888, 'HTTP port of `npm start`'),
  WEBSOCKET_PORT: int(undefined, "`npm start`: serverless-offline's inner WebSocket port; clients use `PORT` (`docs/live-updates.md`)", { shown: '`PORT` − 2' }),
  S3_PORT: int(undefined, 'the port of the local S3 stand-in of `npm start`', { shown: '`PORT` − 3' }),
  S3_DIR: text('.data/s3', 'the folder of the local S3 stand-in of `npm start`'),
  OFFLINE_IN_PROCESS: flag(true, '`npm start` runs every function in one process; `false`: a worker thread per function instance (`docs/connections.md#one-process`)'),
  SLS_LOG_LEVEL: text('warning', "`notice` brings back serverless-offline's two lines per request (they cost throughput)"),
  // The database
  DATABASE_URL: text(undefined, 'PostgreSQL/PostGIS server', '(embedded)'),
  DATA_DIR: text('.data/pglite', 'embedded database folder'),
  MIGRATIONS_DIR: text('sql/migrations', 'the folder of the SQL migrations'),
  STATEMENT_TIMEOUT_MS: num(30000, 'no statement runs longer (server only; PGlite ignores it)', { shown: '30000 (25000 deployed)' }),
  DB_PREPARE: flag(true, '`false` behind RDS Proxy / PgBouncer'),
  DB_POOL_MAX: num(2, 'connections per function instance; under `npm start` per process, shared by every function (`docs/connections.md`)', { shown: '2 (10 under `npm start`)' }),
  DB_IDLE_TIMEOUT_S: num(10, 'close idle connections after this many seconds'),
  DB_MAX_LIFETIME_S: num(300, 'replace connections after this many seconds'),
  DB_CONNECT_TIMEOUT_S: num(5, 'seconds to wait for a connection', { shown: '5 (30 embedded)' }),
  DB_APPLICATION_NAME: text('mmgis-serverless', "the connections' `application_name`"),
  DB_DRIVER: choice(['postgres', 'data-api'], 'postgres', '`data-api`: the RDS Data API driver (`docs/deploying.md`)'),
  DB_CLUSTER_ARN: text(undefined, 'Data API: the Aurora cluster (with `DB_SECRET_ARN`; none: local stand-in)'),
  DB_SECRET_ARN: text(undefined, "Data API: the Secrets Manager secret of the cluster's credentials"),
  DB_NAME: text('postgres', 'Data API and `DB_URL_SECRET_ARN`: the database name'),
  DATA_API_ENDPOINT: text(undefined, 'Data API: the endpoint of a local stand-in'),
  DB_RESUME_WAIT_S: num(20, 'Data API: how long an API call waits for an auto-paused Aurora to resume (jobs and the migration: 120 s; `docs/connections.md`)'),
  DB_URL_SECRET_ARN: text(undefined, 'RDS Proxy / direct: the secret holding the password (`docs/deploying.md`), with `DB_HOST`'),
  DB_HOST: text(undefined, 'with `DB_URL_SECRET_ARN`: the RDS Proxy or cluster endpoint'),
  DB_PORT: text('5432', 'with `DB_URL_SECRET_ARN`: the port'),
  DB_USER: text('postgres', 'with `DB_URL_SECRET_ARN`: the user'),
  DB_CA_FILE: text(undefined, 'with `DB_URL_SECRET_ARN`: the CA bundle TLS is verified against'),
  // Requests and answers
  AUTH: choice(['none', 'local'], 'none', '`none` or `local` (see `docs/auth.md`)'),
  SESSION_TTL_MS: num(24 * 60 * 60 * 1000, 'session lifetime'),
  MAX_BODY_BYTES: num(6 * MiB, 'larger request bodies get 413 (the API Gateway/Lambda limit)'),
  MAX_FORM_PARAMETERS: int(1000, 'urlencoded forms with more parameters get 400 (send JSON)'),
  MAX_FORM_BYTES: int(4 * MiB, 'larger urlencoded forms get 400 (send JSON)'),
  CORS_ORIGINS: list('origins allowed to send cookies (echoed with credentials); others get `*`'),
  PUBLIC_URL: text(undefined, 'the origin links name (TileJSON tiles, OGC links, paging, job `Location`); the front door sets it (`docs/deploying.md`)', "(the request's host)"),
  TRUST_FORWARDED_HEADERS: flag(false, "`true`: links and the cookie's `Secure` follow `X-Forwarded-Host`/`-Proto`, for a proxy of one's own in front that sets them (`docs/tiles.md`, \"TileJSON\")", { ignoreCase: true }),
  IS_OFFLINE: flag(false, 'set by serverless-offline: links are `http`'),
  LOG_LEVEL: choice(['info', 'warn', 'silent'], 'info', '`info`, `warn`, `silent`; logs are one JSON object per line'),
  MAX_INLINE_RESPONSE_BYTES: int(5 * MiB, 'larger GeoJSON answers (get, intersect, search) are served from S3 with a 303'),
  RESPONSE_URL_SECONDS: int(300, "the presigned GET of such an answer is valid this long (at least `TILE_MAX_AGE` + 60 when that is set)"),
  // Tiles and exports
  TILE_MAX_AGE: int(300, 'tiles\' `Cache-Control` max-age; the gateway-cache plugin sets it to the cache TTL (`docs/tiles.md`)', { zero: true }),
  TILE_MAX_FEATURES: int(4096, 'the feature cap of a vector tile: only a tile whose one-feature-per-pixel set is larger is thinned evenly to this many, and marked (`docs/tiles.md`)'),
  TILE_MAX_BYTES: int(500_000, 'no vector tile is larger', { max: 4 * MiB }),
  EXPORT_ABOVE_FEATURES: int(1_000_000, 'a whole-layer GeoJSON read of a larger layer runs as an export job (202, then 303) (`docs/geodatasets-read.md`)'),
  EXPORT_REUSE_SECONDS: int(12 * 3600, 'a finished export answers the same read this long (then the reaper deletes it and its object)', { max: 20 * 3600 }),
  EXPORT_RETRY_SECONDS: int(60, 'a failed export answers 503 this long before another is started', { zero: true, max: 3600 }),
  EXPORT_MAX_PER_CALLER: int(2, 'exports queued or running at once per caller (over it 429; `docs/geodatasets-read.md`, "Export jobs")'),
  EXPORT_MAX_PER_LAYER: int(2, 'exports queued or running at once per layer (over it 503)'),
  EXPORT_MAX_RUNNING: int(4, 'exports queued or running at once in all (over it 503)'),
  // Uploads and jobs
  UPLOAD_BUCKET: text(undefined, 'the S3 bucket of uploads and oversized answers', '`mmgis-<stage>-uploads`'),
  MAX_UPLOAD_BYTES: int(2 * 1024 * MiB, 'largest file accepted by `POST /api/geodatasets/upload`'),
  S3_ENDPOINT: text(undefined, 'locally: the S3 stand-in (serverless-s3-local)'),
  S3_ACCESS_KEY_ID: text('S3RVER', 'the access key sent to the S3 stand-in'),
  S3_SECRET_ACCESS_KEY: text('S3RVER', 'the secret key sent to the S3 stand-in'),
  JOB_HEARTBEAT_S: num(30, "a running job's heartbeat (`docs/uploads.md`)"),
  JOB_STALE_AFTER_S: num(120, 'the reaper fails a running job silent this long', { zero: true }),
  JOB_QUEUED_STALE_AFTER_S: num(900, 'a queued job never started this long fails', { zero: true }),
  JOB_INGEST_MAX_ATTEMPTS: num(2, 'a dead upload ingest is re-run up to this many attempts in all', { zero: true }),
  SERVICE_PREFIX: text('mmgis-dev', 'the deployed function names\' prefix `<service>-<stage>` (set by serverless.yml)'),
  LAMBDA_ENDPOINT: text(undefined, "locally: serverless-offline's Lambda endpoint, for asynchronous invocations"),
  AWS_REGION: text('us-east-1', 'the region of the AWS clients (set by Lambda)'),
  AWS_ACCESS_KEY_ID: text('local', 'the access key sent to a local Data API stand-in (`DATA_API_ENDPOINT`)'),
  AWS_SECRET_ACCESS_KEY: text('local', 'the secret key sent to a local Data API stand-in'),
  // Live updates, webhooks, mission data, rasters
  WEBSOCKET_ENDPOINT: text(undefined, "the WebSocket API's management endpoint (locally serverless-offline's)"),
  WEBSOCKET_URL: text(undefined, 'the browser-facing WebSocket URL of the pages (else derived from `WEBSOCKET_ENDPOINT`; `docs/web.md`)'),
  WEBSOCKET_MAX_PER_ADDRESS: int(20, 'WebSocket connections one source address may hold open; more are refused with 429 at `$connect` (`docs/live-updates.md`, "Limits")'),
  WEBSOCKET_MAX_MESSAGES: num(30, 'messages per connection in 10 seconds before it is closed'),
  WEBHOOK_ALLOW_PRIVATE: flag(false, '`true` lets webhook calls reach loopback, private and link-local addresses (refused otherwise; `docs/webhooks.md`)'),
  WEBHOOK_TIMEOUT_MS: int(5000, 'each webhook call (DNS, connect, answer) stops after this long', { max: 60_000 }),
  MMGIS_CLIENT_DIR: text(undefined, "the folder of an MMGIS 3.0.0 front-end build: `/` and `/configure-beta` are then MMGIS's pages (`docs/mission-site.md`)"),
  MMGIS_CLIENT_BUCKET: text(undefined, "the S3 bucket of an MMGIS build's page templates, read when `MMGIS_CLIENT_DIR` names no build (set by the front door to its site bucket; `docs/mission-site.md`)"),
  MISSION_FILES_MAX_AGE_S: int(3600, 'how long a browser keeps a `/Missions/<mission>/…` file before revalidating it (`docs/mission-site.md`)', { zero: true }),
  MISSION_COOKIE_KEY_ID: text(undefined, "the front door's CloudFront public key id: login signs `/Missions` cookies with it (set by the front door; `docs/mission-site.md`)"),
  MISSION_COOKIE_KEY_SECRET_ARN: text(undefined, 'the Secrets Manager secret whose `privateKey` signs those cookies (set by the front door)'),
  MISSION_DATA_BUCKET: text(undefined, 'the S3 bucket of mission data (rasters, tilesets; `docs/utils.md`); unset: `MISSION_DATA_DIR`'),
  MISSION_DATA_PREFIX: text('', 'a key prefix inside `MISSION_DATA_BUCKET`'),
  MISSION_DATA_DIR: text('.data/missions', 'the folder of mission data when there is no bucket'),
  RASTER_MAX_READ_BYTES: num(32 * MiB, 'a larger raster read is refused with 422 (`docs/utils.md`)'),
  RASTER_MAX_TILE_BYTES: int(64 * MiB, 'decoded bytes of one raster tile or strip'),
  RASTER_MAX_TILES: int(1024, 'raster tiles (or strips) decoded by one request'),
  RASTER_MAX_DECODED_BYTES: int(256 * MiB, 'decoded bytes of one raster request'),
} satisfies Record<string, Declaration>;

export type SettingName = keyof typeof SETTINGS;

type ValueOf<D> =
  D extends NumberSetting<infer X>
    ? X extends number
      ? number
      : number | undefined
    : D extends TextSetting<infer X>
      ? X extends string
        ? string
        : string | undefined
      : D extends ChoiceSetting<infer V>
        ? V
        : D extends FlagSetting
          ? boolean
          : string[];

export type SettingValue<N extends SettingName> = ValueOf<(typeof SETTINGS)[N]>;

/** The variable's text, or undefined when it is unset or empty. */
function rawText(name: string, env: Env): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** The value the text gives under the declaration, or undefined when it is unset or not a valid value. */
function parse(d: Declaration, raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  switch (d.kind) {
    case 'number': {
      const v = Number(raw);
      if (!Number.isFinite(v) || v < 0 || (v === 0 && !d.zero)) return undefined;
      const n = d.integer ? Math.floor(v) : v;
      return d.max !== undefined ? Math.min(n, d.max) : n;
    }
    case 'text':
      return raw;
    case 'choice':
      return d.values.includes(raw) ? raw : undefined;
    case 'flag':
      return (d.ignoreCase ? raw.toLowerCase() : raw) === String(!d.default) ? !d.default : undefined;
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
  }
}

/** The setting's value: the variable's under its declaration, else its default. */
export function setting<N extends SettingName>(name: N, env: Env = process.env): SettingValue<N> {
  const d: Declaration = SETTINGS[name];
  const v = parse(d, rawText(name, env));
  if (v !== undefined) return v as SettingValue<N>;
  return (d.kind === 'list' ? [] : d.default) as SettingValue<N>;
}

/** The setting's value when the variable is set to a valid value, else undefined (its default unused). */
export function settingIfSet<N extends SettingName>(
  name: N,
  env: Env = process.env,
): SettingValue<N> | undefined {
  return parse(SETTINGS[name], rawText(name, env)) as SettingValue<N> | undefined;
}
