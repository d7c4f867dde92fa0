// The only module that reads process.env: every setting is parsed and checked here once, at start-up.
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const optionalText = z.string().trim().min(1).optional().catch(undefined);
const url = z.string().url();
const perMinute = z.coerce.number().int().min(1).max(1_000_000_000);
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A duration such as 500ms, 5s, 5m, 2h or 1d, in milliseconds. */
const durationMs = (text: string): number | null => {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : null;
};
const duration = z.string().transform((v, ctx) => {
  const ms = durationMs(v);
  if (ms === null || ms <= 0) {
    ctx.addIssue({ code: 'custom', message: 'expected a duration such as 30s, 5m, 2h or 3d' });
    return z.NEVER;
  }
  return ms;
});
/** TRACKER_URL: one tracker's URL, or a comma-separated list of them; see trackerUrls(). */
const MAX_TRACKERS = 32;
const trackerList = z
  .string()
  .max(4096)
  .transform((v, ctx) => {
    const list = trackerUrls(v);
    const bad = list.length === 0 || list.length > MAX_TRACKERS || new Set(list).size !== list.length || list.some((u) => !URL.canParse(u) || new URL(u).protocol !== 'http:');
    if (bad) {
      ctx.addIssue({ code: 'custom', message: `expected an absolute URL such as http://host:port, or a comma-separated list of up to ${MAX_TRACKERS} different ones` });
      return z.NEVER;
    }
    return list.join(',');
  });

/** The tracker URLs a TRACKER_URL setting names, in order. */
export function trackerUrls(setting: string): string[] {
  return setting
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
}

/** What a position filter does with a position it catches: store it flagged, drop it, or nothing. */
const filterAction = z.enum(['flag', 'drop', 'off']);
const durations = z.string().transform((v, ctx) => {
  const list = v.split(',').map(durationMs);
  if (list.length > 50 || list.some((ms) => ms === null || ms <= 0)) {
    ctx.addIssue({ code: 'custom', message: 'expected up to 50 comma-separated durations such as 5s,5m,30m,2h' });
    return z.NEVER;
  }
  return list as number[];
});

/** Settings both services read. */
const common = {
  NODE_ENV: z.enum(['production', 'development', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRACKER_URL: trackerList.default('http://127.0.0.1:8081'),
  DATA_DIR: z.string().min(1).default('./data'),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600000).default(10000),
  JWT_PUBLIC_KEY: optionalText,
  GATEWAY_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(20),
};

/** Settings only the gateway reads. */
const gatewayOnly = {
  GATEWAY_PORT: port.default(8080),
  GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
  /** One URL (single), or up to 32 comma-separated seed node or sentinel URLs (cluster, sentinel). */
  REDIS_URL: z.string().max(4000).regex(/^rediss?:\/\/[^,\s]+(,rediss?:\/\/[^,\s]+){0,31}$/, 'a redis:// or rediss:// URL, or a comma-separated list of them').optional(),
  REDIS_MODE: z.enum(['single', 'cluster', 'sentinel']).default('single'),
  REDIS_SENTINEL_NAME: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits and . _ - only').default('mymaster'),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  RATE_LIMIT_ON_STORE_ERROR: z.enum(['open', 'closed']).default('open'),
  RATE_LIMIT_READ_PER_MINUTE: perMinute.default(60),
  RATE_LIMIT_WRITE_PER_MINUTE: perMinute.default(60),
  RATE_LIMIT_COMMANDS_PER_MINUTE: perMinute.default(10),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: perMinute.default(30),
  RATE_LIMIT_DOCS_PER_MINUTE: perMinute.default(300),
  RATE_LIMIT_INBOUND_PER_MINUTE: perMinute.default(120),
  RATE_LIMIT_INBOUND_REFUSED_PER_MINUTE: perMinute.default(30),
  RATE_LIMIT_DASHBOARD_PER_MINUTE: perMinute.default(300),
  RATE_LIMIT_PREFIX: z.string().regex(/^[A-Za-z0-9:._-]{1,64}$/, 'letters, digits and : . _ - only').default('fleet:rl:'),
  TOKEN_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(500),
  TOKEN_CACHE_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(10000),
  GATEWAY_METRICS_PORT: port.default(9464),
  STREAM_MAX_PER_TOKEN: z.coerce.number().int().min(1).max(1000).default(5),
};

/**
 * Each TCP protocol's own port, Traccar's, so a fleet moves without reconfiguring its devices; the
 * setting is the name in capitals with _PORT (GT06_PORT), 0 disables it. DEVICE_PORT takes every
 * protocol whose first bytes identify it.
 */
export const PROTOCOL_PORTS = {
  gt06: 5023,
  teltonika: 5027,
  h02: 5013,
  suntech: 5011,
  meitrack: 5020,
  ruptela: 5046,
  wialon: 5039,
  gl200: 5004,
  jt808: 5015,
  gps103: 5001,
  tk103: 5002,
} as const;
export type ProtocolWithPort = keyof typeof PROTOCOL_PORTS;
export const portSetting = (protocol: string) => `${protocol.toUpperCase()}_PORT`;

/**
 * The dashboard map's tile URL: http(s), Leaflet's {z}, {x} and {y} (or {-y}) placeholders, and
 * {s} (a subdomain letter) only as the host's first label, so the page's Content-Security-Policy
 * can name the exact origin the tiles come from.
 */
const tileUrl = z
  .string()
  .max(2000)
  .superRefine((v, ctx) => {
    const problem = tileUrlProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

function tileUrlProblem(v: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(v.replace(/^(https?:\/\/)\{s\}\./, '$1s.'));
  } catch {
    return 'expected a URL such as https://tile.openstreetmap.org/{z}/{x}/{y}.png';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'expected an http:// or https:// URL';
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  if (/[{}]/.test(parsed.host)) return 'the host may hold {s} only as its first label';
  if (!v.includes('{z}') || !v.includes('{x}') || !(v.includes('{y}') || v.includes('{-y}'))) return 'must hold the {z}, {x} and {y} placeholders';
  return null;
}

/**
 * The map's attribution, shown as markup in the map's corner: text, character references and
 * links to http(s) pages, nothing else.
 */
const attribution = z
  .string()
  .max(500)
  .refine((v) => !/[<>]/.test(v.replace(/<a href="https?:\/\/[^"<>\s]+">|<\/a>/g, '')) && !/&(?![a-z]+;|#\d+;)/i.test(v), 'expected text with optional <a href="https://…">links</a> only');

/** Settings only the tracker (and its operator CLI) reads. */
const trackerOnly = {
  TRACKER_HTTP_PORT: port.default(8081),
  TRACKER_HOST: z.string().min(1).default('127.0.0.1'),
  DEVICE_HOST: z.string().min(1).default('0.0.0.0'),
  DEVICE_PORT: port.default(5000),
  ...Object.fromEntries(Object.entries(PROTOCOL_PORTS).map(([name, p]) => [portSetting(name), port.default(p)])) as Record<`${Uppercase<ProtocolWithPort>}_PORT`, ReturnType<typeof port.default>>,
  OSMAND_PORT: port.default(5055),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// connection string').optional(),
  DATABASE_READ_URL: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// connection string').optional(),
  DATABASE_READ_MAX_LAG_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  DATA_DIR_LOCK_WAIT_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  PUBLIC_BASE_URL: url.default('http://localhost:8080'),
  WEBHOOK_ALLOW_HTTP: bool.default(false),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_RETRY_SCHEDULE: durations.default([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 86_400_000, 86_400_000]),
  WEBHOOK_DISABLE_AFTER: duration.default(3 * 86_400_000),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  WEBHOOK_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  DEMO: bool.optional(),
  JWT_PRIVATE_KEY: optionalText,
  MAX_TOKENS_PER_ACCOUNT: z.coerce.number().int().min(1).max(10000).default(50),
  POSITIONS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
  REPORTS_KEEP_DAYS: z.coerce.number().int().min(0).max(90).default(90),
  DEVICE_LIST_SNAPSHOT_MS: z.coerce.number().int().min(0).max(60000).default(1000),
  INBOUND_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  INBOUND_LOG_MAX_CALLS: z.coerce.number().int().min(10).max(100_000).default(1000),
  COMMAND_TTL_SECONDS: z.coerce.number().int().min(1).max(86400).default(300),
  ENGINE_STOP_MAX_SPEED_KMH: z.coerce.number().min(0).max(300).default(5),
  ENGINE_STOP_TTL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  LOGIN_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  DEVICE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86400).default(600),
  DEVICE_TAKEOVER: z.enum(['newer', 'older']).default('newer'),
  DEVICE_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(50_000),
  DEVICE_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(500),
  DEVICE_PROXY_PROTOCOL: bool.default(false),
  OSMAND_REPORTS_PER_MINUTE_PER_ADDRESS: perMinute.default(600),
  DEVICE_OFFLINE_GRACE_SECONDS: z.coerce.number().int().min(0).max(86400).default(120),
  CRC_STRICT: bool.default(false),
  POSITION_EARLIEST_TIME: z.iso.datetime({ offset: true, error: 'expected an ISO 8601 time such as 2000-01-01T00:00:00Z' }).transform((v) => new Date(v)).default(new Date('2000-01-01T00:00:00Z')),
  POSITION_MAX_FUTURE: duration.default(86_400_000),
  FILTER_ZERO: filterAction.default('flag'),
  FILTER_FUTURE: filterAction.default('flag'),
  FILTER_FUTURE_MARGIN: duration.default(600_000),
  FILTER_JUMP: filterAction.default('flag'),
  FILTER_MAX_SPEED_KMH: z.coerce.number().int().min(1).max(100_000).default(300),
  ENGINE_HOURS_MAX_GAP: duration.default(900_000),
  DASHBOARD_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
  DASHBOARD_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(720).default(12),
  DASHBOARD_PASSWORD_LINK_HOURS: z.coerce.number().int().min(1).max(168).default(24),
  DASHBOARD_LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  DASHBOARD_LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(100000).default(20),
  DASHBOARD_LOGIN_WINDOW_MINUTES: z.coerce.number().int().min(1).max(1440).default(15),
  DASHBOARD_SET_PASSWORD_MAX_PER_ADDRESS: z.coerce.number().int().min(1).max(100000).default(10),
  TRACKER_METRICS_PORT: port.default(9465),
  STREAM_RETENTION_SECONDS: z.coerce.number().int().min(300).max(86400).default(600),
  STREAM_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(15),
  STREAM_MAX_BUFFER_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  MAP_TILE_URL: tileUrl.default('https://tile.openstreetmap.org/{z}/{x}/{y}.png'),
  MAP_ATTRIBUTION: attribution.default('&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'),
};

// Each service parses only its own settings, so a bad value for the other one does not stop it;
// `npm start`, which runs both, parses all of them.
const schema = z.object({ ...common, ...gatewayOnly, ...trackerOnly });
const gatewaySchema = z.object({ ...common, ...gatewayOnly });
const trackerSchema = z.object({ ...common, ...trackerOnly });

export type Config = z.infer<typeof schema>;
export type GatewayConfig = z.infer<typeof gatewaySchema>;
export type TrackerConfig = z.infer<typeof trackerSchema>;

/** Every setting's name (the deployment files are checked against it). */
export const SETTING_NAMES = Object.keys(schema.shape) as (keyof Config)[];

/** Thrown for a bad setting; the message is the one line the operator sees. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** Parses every setting of both services from an environment map (process.env by default). */
export const parseConfig = (env: Env = process.env): Config => parseWith(schema, env);

/** Parses the gateway's settings only: those of the tracker alone are not read. */
export const parseGatewayConfig = (env: Env = process.env): GatewayConfig => parseWith(gatewaySchema, env);

/** Parses the tracker's settings only: those of the gateway alone are not read. */
export const parseTrackerConfig = (env: Env = process.env): TrackerConfig => parseWith(trackerSchema, env);

/** Empty strings count as unset. */
function parseWith<T extends z.ZodType>(settings: T, env: Env): z.infer<T> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = settings.safeParse(cleaned);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0]);
  const given = cleaned[name];
  const shown = name.includes('KEY') || name.includes('SECRET') || name === 'DATABASE_URL' || name === 'DATABASE_READ_URL' || name === 'REDIS_URL' ? '(hidden)' : JSON.stringify(given);
  throw new ConfigError(`Invalid setting ${name}=${shown}: ${describe(issue)}`);
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value') return `allowed values are ${issue.values.map(String).join(', ')}`;
  const unit = issue.code === 'too_small' || issue.code === 'too_big' ? (issue.origin === 'string' ? ' characters' : '') : '';
  if (issue.code === 'too_small') return `must be at least ${String(issue.minimum)}${unit}`;
  if (issue.code === 'too_big') return `must be at most ${String(issue.maximum)}${unit}`;
  if (issue.code === 'invalid_type') return issue.expected === 'number' ? 'expected a whole number' : `expected ${issue.expected}`;
  if (issue.code === 'invalid_format' && issue.format === 'url') return 'expected an absolute URL such as http://host:port';
  return issue.message;
}

/** Parses settings (with one of the parsers above) or ends the process with one clear line on stderr. */
export function loadConfig<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
