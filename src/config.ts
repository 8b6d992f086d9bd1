import { z } from 'zod';
import { parseApiVersions } from './kernel/versioning.ts';
import { loadManifest } from './graphql/transport/persisted.ts';

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** postgresql://... ; unset means the embedded PGlite database in DATA_DIR. */
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./data'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** redis://... ; when set, rate-limit counters are shared through Redis. */
  REDIS_URL: z.string().optional(),
  /**
   * Base of the problem+json `type` and `doc_url` links. Default: the server's own error pages, `<PUBLIC_URL>/errors`
   * (a relative reference `/errors` when PUBLIC_URL is unset), so every link a client receives resolves.
   */
  ERRORS_URL: z.string().url().optional(),
  /**
   * Browser origins allowed to call /api/v2 and /graphql (comma-separated, e.g. https://app.example.com); `*` allows
   * any origin. Default: none (no CORS headers; browsers on other origins are refused by the browser).
   */
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const origins = (raw ?? '').split(',').map((origin) => origin.trim()).filter(Boolean);
      for (const origin of origins) {
        if (origin === '*') continue;
        let url: URL | null = null;
        try {
          url = new URL(origin);
        } catch {}
        if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
          ctx.addIssue({ code: 'custom', message: `${origin} is not an origin (scheme://host[:port], no path or trailing slash)` });
          return z.NEVER;
        }
      }
      return origins;
    }),
  /** When set, GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>`; unset, /metrics is open (see docs/operations.md). */
  METRICS_TOKEN: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** How long a verified API key is trusted before it is read again (revocation takes effect within this). */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(5000).default(2000),
  /**
   * How long an idempotency key's claim holds while its request runs: after a process died mid-request, a retry
   * with the same key waits this long before it runs the work again (src/kernel/idempotency.ts).
   */
  IDEMPOTENCY_LOCK_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /**
   * How long an idle keep-alive connection is kept open, in ms. Above the idle timeout of the load balancer in
   * front (60 s is common), so the server never closes a connection the balancer is about to reuse.
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(65_000),
  /** How long a request may take to arrive whole (headers and body), in ms; at least the keep-alive timeout. */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(300_000),
  /**
   * On SIGTERM or SIGINT: how long requests in flight, webhook deliveries and WebSocket close handshakes may take to
   * finish before the process exits anyway, in ms.
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** Largest accepted request body, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  TRUST_PROXY: z.string().optional(),
  /**
   * The server's public base URL (https://api.example.com, or with a path prefix), for absolute links (the list
   * Link header). Unset: links are relative references (</api/v2/customers?...>). Never taken from the request's
   * Host header, which the client chooses.
   */
  PUBLIC_URL: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return undefined;
      let url: URL;
      try {
        url = new URL(raw.trim());
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
        return z.NEVER;
      }
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
        ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL without credentials, query or fragment' });
        return z.NEVER;
      }
      // The base the API's paths (/api/v2/...) are appended to, without a trailing slash.
      return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    }),
  /**
   * Allowlist mode of /graphql: the path of a persisted-operations manifest (JSON: { "<id>": "<document>" }, or
   * Apollo's { "operations": [{ "id", "body" }] }); only its operations run. Read and checked at startup.
   */
  GRAPHQL_PERSISTED_OPERATIONS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return undefined;
      try {
        return { path: raw.trim(), manifest: loadManifest(raw.trim()) };
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** Automatic persisted queries on /graphql (off in allowlist mode). */
  GRAPHQL_APQ: z.enum(['on', 'off']).default('on'),
  /** How long a registered APQ document lives in Redis (with REDIS_URL), in seconds. */
  GRAPHQL_APQ_TTL_SECONDS: z.coerce.number().int().min(60).max(30 * 86_400).default(86_400),
  /** GraphQL operations costing this many points or more are expensive: few run at once (docs/graphql-limits.md). */
  GRAPHQL_EXPENSIVE_COST: z.coerce.number().int().min(1).default(10_000),
  /** Expensive GraphQL operations of one key running at once in a process. */
  GRAPHQL_EXPENSIVE_PER_KEY: z.coerce.number().int().min(1).max(1_000).default(2),
  /** Expensive GraphQL operations running at once in a process, all keys together. */
  GRAPHQL_EXPENSIVE_PER_PROCESS: z.coerce.number().int().min(1).max(1_000).default(4),
  /** How long an expensive GraphQL operation may wait for its turn before 429 rate_limit.exceeded, in ms. */
  GRAPHQL_EXPENSIVE_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
  /** API versions accepted in Fieldline-Version and on keys (comma-separated dates); default the current one. */
  API_VERSIONS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      try {
        return parseApiVersions(raw);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  // ---- Events and webhooks (docs/webhooks.md) ----
  /** true lets webhook URLs resolve to loopback, private, link-local and other non-public addresses (development, tests). */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(['true', 'false']).optional(),
  /** Per-attempt timeout of a delivery, in ms. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** How long the verification handshake waits for the endpoint's answer, in ms. */
  WEBHOOK_VERIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /**
   * Delays before each retry of a failed delivery, in seconds, comma-separated. Default: 5 s, 5 min, 30 min, 2 h,
   * 5 h, 10 h, 14 h, 20 h, 24 h (nine retries over about three days, after the first attempt).
   */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('5,300,1800,7200,18000,36000,50400,72000,86400')
    .transform((raw, ctx) => {
      const delays = raw.split(',').map((part) => Number(part.trim()));
      if (delays.length === 0 || delays.length > 50 || delays.some((d) => !Number.isInteger(d) || d < 0 || d > 7 * 86_400)) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated whole seconds (0 to 604800), at most 50' });
        return z.NEVER;
      }
      return delays;
    }),
  /** Consecutive failed attempts after which an endpoint is paused (the circuit breaker). */
  WEBHOOK_PAUSE_AFTER_FAILURES: z.coerce.number().int().min(1).max(1000).default(10),
  /** How long a paused endpoint waits before deliveries resume, in seconds. */
  WEBHOOK_PAUSE_SECONDS: z.coerce.number().int().min(1).max(7 * 86_400).default(900),
  /** An endpoint failing continuously this many days is disabled. */
  WEBHOOK_DISABLE_AFTER_DAYS: z.coerce.number().min(0.0001).max(365).default(5),
  /** 32 bytes, base64: the key that encrypts webhook signing secrets. Unset: a key kept in the database. */
  WEBHOOK_SECRETS_KEY: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      const key = Buffer.from(raw, 'base64');
      if (key.length !== 32) {
        ctx.addIssue({ code: 'custom', message: 'must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)' });
        return z.NEVER;
      }
      return key;
    }),
  /** Days events are kept (GET /events, replays, subscription resumes); older ones are purged daily. */
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  // ---- Attachment files (docs/decisions.md, Attachments) ----
  /** Where attachment files are stored: `disk` (a directory, FILES_DIR) or `s3` (an S3-compatible bucket). */
  FILE_STORAGE: z.enum(['disk', 's3']).default('disk'),
  /** The directory of attachment files with FILE_STORAGE=disk; default `<DATA_DIR>/files`. */
  FILES_DIR: z.string().optional(),
  /** The S3 API endpoint (https://s3.eu-west-1.amazonaws.com, http://minio:9000); unset: AWS's endpoint of S3_REGION. */
  S3_ENDPOINT: z.string().url().optional(),
  /** The bucket of attachment files with FILE_STORAGE=s3 (required then). */
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default('us-east-1'),
  /** The bucket's credentials; unset: the AWS SDK's default chain (environment, instance role ...). */
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** true addresses the bucket in the path (http://host/bucket/key), as MinIO and most S3-compatible servers need. */
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
});

type Parsed = z.infer<typeof schema>;
export type Config = Readonly<
  Omit<Parsed, 'ERRORS_URL' | 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'> & {
    ERRORS_URL: string;
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean;
    /** Loopback webhook URLs: with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, and by default in development (NODE_ENV unset or `development`). */
    WEBHOOK_ALLOW_LOOPBACK: boolean;
  }
>;

/**
 * Parses the settings from the environment. A setting set to the empty string (or only spaces), as compose files
 * and `.env` templates write `DATABASE_URL=`, is unset: its default applies.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const set = Object.fromEntries(Object.entries(env).filter(([name, value]) => !(name in schema.shape && (value ?? '').trim() === '')));
  const parsed = schema.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const data = parsed.data;
  if (data.FILE_STORAGE === 's3' && !data.S3_BUCKET) throw new Error('invalid configuration: S3_BUCKET: required with FILE_STORAGE=s3');
  if (data.HTTP_REQUEST_TIMEOUT_MS < data.HTTP_KEEP_ALIVE_TIMEOUT_MS) {
    throw new Error('invalid configuration: HTTP_REQUEST_TIMEOUT_MS: must be at least HTTP_KEEP_ALIVE_TIMEOUT_MS');
  }
  // Development is NODE_ENV unset or `development` (the image sets production; the test suite, test).
  const development = env.NODE_ENV === undefined || env.NODE_ENV === '' || env.NODE_ENV === 'development';
  const privateNetworks = data.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  return Object.freeze({
    ...data,
    ERRORS_URL: data.ERRORS_URL?.replace(/\/+$/, '') ?? `${data.PUBLIC_URL ?? ''}/errors`,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: privateNetworks === 'true',
    WEBHOOK_ALLOW_LOOPBACK: privateNetworks === 'true' || (privateNetworks === undefined && development),
  });
}
