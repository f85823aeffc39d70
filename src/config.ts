import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseEncryptionKey, parseEncryptionKeys } from './config/encryption-keys.ts';
import { defaultFfmpegPath } from './config/ffmpeg-path.ts';

// The one place that reads the environment. Every process (api, worker, admin CLI, dev stack) calls loadConfig();
// a missing or malformed variable stops start-up with a message naming it, instead of failing later on first use.

const defaultTaskQueue = 'content-service';

/**
 * The production retry ladder of a webhook delivery: 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h and 24 h after the
 * first attempt, nine attempts over 2 days 20 hours, in the spirit of Stripe's and Standard Webhooks' schedules (and
 * what the API reference promises customers).
 */
const defaultWebhookRetryWaits = '60,300,1800,7200,21600,43200,86400,86400';

const booleanString = z.enum(['true', 'false']).transform((value) => value === 'true');
const port = z.coerce.number().int().min(0).max(65535);
const seconds = z.coerce.number().int().positive();

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
    HOST: z.string().min(1).default('0.0.0.0'),
    PORT: port.default(3000),
    TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
    PUBLIC_URL: z.url().optional(),
    // Above the idle timeout of the balancer in front (60 s for AWS ALB and nginx's upstream keepalive), so the
    // balancer, not the api, closes an idle connection: one it reuses as the api closes it answers 502.
    HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: seconds.max(3600).default(65),
    DATA_DIR: z.string().min(1).default('.data'),

    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
    DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),

    TEMPORAL_ADDRESS: z.string().min(1).default('localhost:7233'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default(defaultTaskQueue),
    // A Temporal that does not answer within it is down for the request (503); tests shorten it to see that soon.
    TEMPORAL_CALL_TIMEOUT_SECONDS: seconds.max(60).default(10),
    TEMPORAL_WORKFLOW_BUNDLE: z.string().min(1).optional(),
    TEMPORAL_TLS: booleanString.optional(),
    TEMPORAL_TLS_CA_PATH: z.string().min(1).optional(),
    TEMPORAL_TLS_CERT_PATH: z.string().min(1).optional(),
    TEMPORAL_TLS_KEY_PATH: z.string().min(1).optional(),
    TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
    TEMPORAL_API_KEY: z.string().min(1).optional(),

    STORAGE_DRIVER: z.enum(['filesystem', 's3']).default('filesystem'),
    STORAGE_DIR: z.string().min(1).optional(),
    SIGNED_URL_TTL_SECONDS: seconds.default(3600),
    URL_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters'),
    S3_BUCKET: z.string().min(1).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_ENDPOINT: z.url().optional(),
    S3_PUBLIC_ENDPOINT: z.url().optional(),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_FORCE_PATH_STYLE: booleanString.default(false),

    // Unset: Stability AI when its key is set, OpenAI's images API when only its key is, otherwise the local renderer.
    IMAGE_PROVIDER: z.enum(['local', 'stability', 'openai']).optional(),
    STABILITY_API_KEY: z.string().min(1).optional(),
    STABILITY_API_URL: z.url().default('https://api.stability.ai'),
    STABILITY_ENGINE: z.enum(['core', 'ultra', 'sd3']).default('core'),
    // Up to the API's version (…/v1), or an Azure OpenAI resource's endpoint with OPENAI_IMAGES_AZURE_API_VERSION.
    OPENAI_IMAGES_URL: z.url({ protocol: /^https?$/ }).default('https://api.openai.com/v1'),
    OPENAI_IMAGES_API_KEY: z.string().min(1).optional(),
    OPENAI_IMAGES_MODEL: z.string().min(1).default('gpt-image-1'),
    // The sizes the model takes, for servers other than OpenAI's (whose models' sizes are known).
    OPENAI_IMAGES_SIZES: z
      .string()
      .transform((list, ctx) => {
        const sizes = list.split(',').map((entry) => entry.trim());
        if (sizes.length > 20 || sizes.some((size) => !/^[1-9]\d{1,4}x[1-9]\d{1,4}$/.test(size))) {
          ctx.addIssue({ code: 'custom', message: 'must list 1 to 20 sizes, comma-separated, each WIDTHxHEIGHT in pixels (e.g. 1024x1024,1536x1024)' });
          return z.NEVER;
        }
        return sizes as Array<`${number}x${number}`>;
      })
      .optional(),
    OPENAI_IMAGES_AZURE_API_VERSION: z.string().min(1).optional(),
    OPENAI_IMAGES_AZURE_DEPLOYMENT: z.string().min(1).optional(),
    // An image answered as a URL is fetched through the public-address guard; development servers may be local.
    OPENAI_IMAGES_ALLOW_PRIVATE_NETWORKS: booleanString.default(false),
    LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: booleanString.default(false),
    FFMPEG_PATH: z.string().min(1).optional(),
    VIDEO_CONCURRENCY: z.coerce.number().int().positive().default(availableParallelism()),
    WORKER_SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).default(25),
    ENCRYPTION_KEYS: z.string().min(1).optional(),
    ENCRYPTION_KEY: z.string().min(1).optional(),
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: booleanString.default(false),
    // At most 30: a delivery round heartbeats between requests, within its heartbeat timeout of a minute.
    WEBHOOK_TIMEOUT_SECONDS: seconds.max(30).default(15),
    // Each one waits on sockets, not on a core: many per process cost little.
    WEBHOOK_SLOW_CONCURRENCY: z.coerce.number().int().positive().default(200),
    // The waits of the delivery retry ladder, in seconds: the production schedule unless a test or staging stack
    // shortens it. Read once per event, when its delivery starts (a run keeps the ladder it started with).
    WEBHOOK_RETRY_WAITS_SECONDS: z
      .string()
      .default(defaultWebhookRetryWaits)
      .transform((list, ctx) => {
        const waits = list.split(',').map((entry) => Number(entry.trim()));
        if (waits.length > 20 || waits.some((wait) => !Number.isInteger(wait) || wait < 1 || wait > 7 * 24 * 60 * 60)) {
          ctx.addIssue({ code: 'custom', message: 'must list 1 to 20 waits, comma-separated, each a whole number of seconds from 1 to 604800 (a week)' });
          return z.NEVER;
        }
        return waits;
      }),
    // Long enough that the sweep leaves alone an event whose recorder is handing it over right now (the api's
    // attempt takes up to one Temporal deadline, 10 s); tests shorten it to see the sweep at once.
    EVENT_SWEEP_AFTER_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
    SOCIAL_ALLOW_PRIVATE_NETWORKS: booleanString.default(false),
    // One request to a platform; a publish past it is an outcome to reconcile, so tests shorten it to see that soon.
    SOCIAL_REQUEST_TIMEOUT_SECONDS: seconds.max(120).default(30),
    X_CLIENT_ID: z.string().min(1).optional(),
    X_CLIENT_SECRET: z.string().min(1).optional(),
    X_API_URL: z.url({ protocol: /^https$/ }).default('https://api.x.com'),
    X_AUTHORIZE_URL: z.url({ protocol: /^https$/ }).default('https://x.com/i/oauth2/authorize'),
    LINKEDIN_CLIENT_ID: z.string().min(1).optional(),
    LINKEDIN_CLIENT_SECRET: z.string().min(1).optional(),
    LINKEDIN_API_URL: z.url({ protocol: /^https$/ }).default('https://api.linkedin.com'),
    LINKEDIN_AUTHORIZE_URL: z.url({ protocol: /^https$/ }).default('https://www.linkedin.com/oauth/v2'),
    LINKEDIN_ORGANIZATION_AUTHORS: booleanString.default(false),
    LINKEDIN_ORGANIZATION_CLIENT_ID: z.string().min(1).optional(),
    LINKEDIN_ORGANIZATION_CLIENT_SECRET: z.string().min(1).optional(),
    THREADS_CLIENT_ID: z.string().min(1).optional(),
    THREADS_CLIENT_SECRET: z.string().min(1).optional(),
    THREADS_API_URL: z.url({ protocol: /^https$/ }).default('https://graph.threads.net'),
    THREADS_AUTHORIZE_URL: z.url({ protocol: /^https$/ }).default('https://threads.net/oauth/authorize'),
    PINTEREST_CLIENT_ID: z.string().min(1).optional(),
    PINTEREST_CLIENT_SECRET: z.string().min(1).optional(),
    PINTEREST_API_URL: z.url({ protocol: /^https$/ }).default('https://api.pinterest.com'),
    PINTEREST_AUTHORIZE_URL: z.url({ protocol: /^https$/ }).default('https://www.pinterest.com/oauth/'),
    YOUTUBE_CLIENT_ID: z.string().min(1).optional(),
    YOUTUBE_CLIENT_SECRET: z.string().min(1).optional(),
    YOUTUBE_API_URL: z.url({ protocol: /^https$/ }).default('https://www.googleapis.com'),
    YOUTUBE_AUTHORIZE_URL: z.url({ protocol: /^https$/ }).default('https://accounts.google.com/o/oauth2/v2/auth'),
    YOUTUBE_TOKEN_URL: z.url({ protocol: /^https$/ }).default('https://oauth2.googleapis.com/token'),
    // Each request of a resumable upload; YouTube takes multiples of 256 KiB (the last part aside).
    YOUTUBE_UPLOAD_CHUNK_KIB: z.coerce
      .number()
      .int()
      .min(256)
      .max(256 * 1024)
      .refine((kib) => kib % 256 === 0, 'must be a multiple of 256')
      .default(8192),
    // The daily quota of the operator's Google Cloud project, 10,000 units unless Google granted more.
    YOUTUBE_DAILY_QUOTA: z.coerce.number().int().min(1).default(10_000),
    INSTAGRAM_CLIENT_ID: z.string().min(1).optional(),
    INSTAGRAM_CLIENT_SECRET: z.string().min(1).optional(),
    INSTAGRAM_API_URL: z.url({ protocol: /^https$/ }).default('https://graph.instagram.com'),
    INSTAGRAM_AUTHORIZE_URL: z.url({ protocol: /^https$/ }).default('https://www.instagram.com/oauth/authorize'),
    INSTAGRAM_TOKEN_URL: z.url({ protocol: /^https$/ }).default('https://api.instagram.com/oauth/access_token'),
    TIKTOK_CLIENT_KEY: z.string().min(1).optional(),
    TIKTOK_CLIENT_SECRET: z.string().min(1).optional(),
    TIKTOK_API_URL: z.url({ protocol: /^https$/ }).default('https://open.tiktokapis.com'),
    TIKTOK_AUTHORIZE_URL: z.url({ protocol: /^https$/ }).default('https://www.tiktok.com/v2/auth/authorize/'),
    // Each chunk of an upload: TikTok takes 5 to 64 MB (https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide).
    TIKTOK_UPLOAD_CHUNK_MIB: z.coerce.number().int().min(5).max(64).default(10),
    FACEBOOK_CLIENT_ID: z.string().min(1).optional(),
    FACEBOOK_CLIENT_SECRET: z.string().min(1).optional(),
    FACEBOOK_API_URL: z.url({ protocol: /^https$/ }).default('https://graph.facebook.com'),
    FACEBOOK_AUTHORIZE_URL: z.url({ protocol: /^https$/ }).default('https://www.facebook.com/v24.0/dialog/oauth'),
    FACEBOOK_VIDEO_API_URL: z.url({ protocol: /^https$/ }).default('https://graph-video.facebook.com'),
    SLACK_API_URL: z.url({ protocol: /^https$/ }).default('https://slack.com/api'),
    TELEGRAM_API_URL: z.url({ protocol: /^https$/ }).default('https://api.telegram.org'),
    DISCORD_API_URL: z.url({ protocol: /^https$/ }).default('https://discord.com/api'),
    API_WAIT_SECONDS: seconds.default(25),
    // A retry of a request whose api died waits this long for its key; tests shorten it to see the takeover soon.
    IDEMPOTENCY_LOCK_SECONDS: seconds.max(60).default(10),

    RATE_LIMIT_REQUESTS: z.coerce.number().int().positive().default(600),
    RATE_LIMIT_WORKSPACE_REQUESTS: z.coerce.number().int().positive().optional(),
    RATE_LIMIT_WINDOW_SECONDS: seconds.default(60),
    RATE_LIMIT_AUTH_FAILURES: z.coerce.number().int().positive().default(60),
    API_KEY_LAST_USED_FLUSH_SECONDS: seconds.default(30),

    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
    OTEL_SERVICE_NAME: z.string().min(1).optional(),

    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    METRICS_PORT: port.default(9464),
    WORKER_METRICS_PORT: port.default(9465),
    TEMPORAL_METRICS_PORT: port.default(9466),
  })
  .superRefine((env, ctx) => {
    // Both at once is refused rather than one winning: an operator who adds ENCRYPTION_KEYS beside an old
    // ENCRYPTION_KEY would otherwise drop a key without knowing it.
    if (env.ENCRYPTION_KEYS !== undefined && env.ENCRYPTION_KEY !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['ENCRYPTION_KEYS'],
        message: 'set ENCRYPTION_KEYS or ENCRYPTION_KEY, not both (ENCRYPTION_KEYS lists the current key first, then older ones)',
      });
    } else if (env.ENCRYPTION_KEYS === undefined && env.ENCRYPTION_KEY === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['ENCRYPTION_KEYS'],
        message: 'is required (the current key first, then older ones; or ENCRYPTION_KEY for one key)',
      });
    } else {
      try {
        encryptionKeys(env);
      } catch (error) {
        ctx.addIssue({ code: 'custom', path: [env.ENCRYPTION_KEYS === undefined ? 'ENCRYPTION_KEY' : 'ENCRYPTION_KEYS'], message: (error as Error).message });
      }
    }
    if (Boolean(env.TEMPORAL_TLS_CERT_PATH) !== Boolean(env.TEMPORAL_TLS_KEY_PATH)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.TEMPORAL_TLS_CERT_PATH ? 'TEMPORAL_TLS_KEY_PATH' : 'TEMPORAL_TLS_CERT_PATH'],
        message: 'a client certificate needs both TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH',
      });
    }
    if (env.TEMPORAL_TLS === false && (env.TEMPORAL_TLS_CA_PATH || env.TEMPORAL_TLS_CERT_PATH || env.TEMPORAL_API_KEY)) {
      ctx.addIssue({ code: 'custom', path: ['TEMPORAL_TLS'], message: 'is false, but TLS settings or an API key are given (they need TLS)' });
    }
    for (const [name, prefix] of [
      ['X', 'X'],
      ['LinkedIn', 'LINKEDIN'],
      ["LinkedIn's organisation app", 'LINKEDIN_ORGANIZATION'],
      ['Threads', 'THREADS'],
      ['Pinterest', 'PINTEREST'],
      ['YouTube', 'YOUTUBE'],
      ['Instagram', 'INSTAGRAM'],
      ['Facebook', 'FACEBOOK'],
    ] as const) {
      const id = env[`${prefix}_CLIENT_ID`];
      if (Boolean(id) !== Boolean(env[`${prefix}_CLIENT_SECRET`])) {
        const missing = id ? `${prefix}_CLIENT_SECRET` : `${prefix}_CLIENT_ID`;
        ctx.addIssue({ code: 'custom', path: [missing], message: `${name} needs both ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET` });
      }
    }
    // TikTok calls its client id the client key.
    if (Boolean(env.TIKTOK_CLIENT_KEY) !== Boolean(env.TIKTOK_CLIENT_SECRET)) {
      const missing = env.TIKTOK_CLIENT_KEY ? 'TIKTOK_CLIENT_SECRET' : 'TIKTOK_CLIENT_KEY';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'TikTok needs both TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET' });
    }
    for (const issue of imageProviderProblems(env)) ctx.addIssue({ code: 'custom', ...issue });
    if (env.STORAGE_DRIVER === 's3' && !env.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when STORAGE_DRIVER=s3' });
    }
  });

export type Config = ReturnType<typeof toConfig>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  return toConfig(parsed.data);
}

/**
 * The base URL of links the service hands out (signed file URLs, the dev stack's banner): PUBLIC_URL, else this
 * machine on the api's port. A server started on port 0 passes the port it got.
 */
export function publicBaseUrl(http: Config['http'], port: number = http.port): string {
  return http.publicUrl ?? `http://localhost:${port}`;
}

function toConfig(env: z.infer<typeof schema>) {
  return {
    env: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    http: {
      host: env.HOST,
      port: env.PORT,
      publicUrl: env.PUBLIC_URL?.replace(/\/$/, ''),
      /**
       * Proxies (load balancers) in front of the api whose `X-Forwarded-For` entries are believed, nearest first: the
       * client address is the entry that many hops back. 0: none, the connection's own address.
       */
      trustProxyHops: env.TRUST_PROXY_HOPS,
      keepAliveTimeoutSeconds: env.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS,
    },
    dataDir: env.DATA_DIR,
    database: { url: env.DATABASE_URL, poolMax: env.DATABASE_POOL_MAX },
    temporal: {
      address: env.TEMPORAL_ADDRESS,
      namespace: env.TEMPORAL_NAMESPACE,
      taskQueue: env.TEMPORAL_TASK_QUEUE,
      workflowBundle: env.TEMPORAL_WORKFLOW_BUNDLE,
      // TLS when asked for, or implied by a CA, a client certificate, a server name or an API key (Temporal Cloud
      // takes mTLS or an API key, both over TLS).
      tls:
        (env.TEMPORAL_TLS ?? Boolean(env.TEMPORAL_TLS_CA_PATH || env.TEMPORAL_TLS_CERT_PATH || env.TEMPORAL_TLS_SERVER_NAME || env.TEMPORAL_API_KEY))
          ? {
              caPath: env.TEMPORAL_TLS_CA_PATH,
              certPath: env.TEMPORAL_TLS_CERT_PATH,
              keyPath: env.TEMPORAL_TLS_KEY_PATH,
              serverName: env.TEMPORAL_TLS_SERVER_NAME,
            }
          : null,
      apiKey: env.TEMPORAL_API_KEY,
      /** How long connecting, and a request's calls to Temporal in all, may take before it answers 503. */
      callTimeoutSeconds: env.TEMPORAL_CALL_TIMEOUT_SECONDS,
      /** How long running activities may finish after SIGTERM before they are cancelled (and retried elsewhere). */
      shutdownGraceSeconds: env.WORKER_SHUTDOWN_GRACE_SECONDS,
    },
    storage: {
      driver: env.STORAGE_DRIVER,
      directory: env.STORAGE_DIR ?? `${env.DATA_DIR}/objects`,
      signedUrlTtlSeconds: env.SIGNED_URL_TTL_SECONDS,
      urlSigningSecret: env.URL_SIGNING_SECRET,
      s3: {
        bucket: env.S3_BUCKET ?? '',
        region: env.S3_REGION,
        endpoint: env.S3_ENDPOINT,
        publicEndpoint: env.S3_PUBLIC_ENDPOINT,
        accessKeyId: env.S3_ACCESS_KEY_ID,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY,
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
      },
    },
    generation: {
      provider: imageProviderOf(env),
      stability: { apiKey: env.STABILITY_API_KEY ?? '', baseUrl: env.STABILITY_API_URL.replace(/\/$/, ''), engine: env.STABILITY_ENGINE },
      openai: {
        baseUrl: env.OPENAI_IMAGES_URL.replace(/\/$/, ''),
        apiKey: env.OPENAI_IMAGES_API_KEY ?? '',
        model: env.OPENAI_IMAGES_MODEL,
        sizes: env.OPENAI_IMAGES_SIZES,
        azure:
          env.OPENAI_IMAGES_AZURE_API_VERSION && env.OPENAI_IMAGES_AZURE_DEPLOYMENT
            ? { apiVersion: env.OPENAI_IMAGES_AZURE_API_VERSION, deployment: env.OPENAI_IMAGES_AZURE_DEPLOYMENT }
            : null,
        allowPrivateNetworks: env.OPENAI_IMAGES_ALLOW_PRIVATE_NETWORKS,
      },
      logoFetch: { allowPrivateNetworks: env.LOGO_FETCH_ALLOW_PRIVATE_NETWORKS },
    },
    /** `concurrency`: encodes one worker runs at once (each ffmpeg keeps a core busy). */
    video: { ffmpegPath: env.FFMPEG_PATH ?? defaultFfmpegPath(), concurrency: env.VIDEO_CONCURRENCY },
    /**
     * Seal webhook secrets, social credentials and stored idempotent answers at rest: the first key seals, every
     * key opens (see src/adapters/crypto/secret-box.ts).
     */
    secrets: { encryptionKeys: encryptionKeys(env) },
    webhooks: {
      allowPrivateNetworks: env.WEBHOOKS_ALLOW_PRIVATE_NETWORKS,
      timeoutMs: env.WEBHOOK_TIMEOUT_SECONDS * 1000,
      /** Deliveries to slow receivers one worker process runs at once (the slow-webhooks task queue). */
      slowConcurrency: env.WEBHOOK_SLOW_CONCURRENCY,
      /** The waits between an event's delivery attempts to one webhook, in seconds (the retry ladder). */
      retryWaitsSeconds: env.WEBHOOK_RETRY_WAITS_SECONDS,
      /** How long after it was recorded an event nobody handed to its delivery is handed over by the event sweep. */
      sweepAfterMs: env.EVENT_SWEEP_AFTER_SECONDS * 1000,
    },
    social: {
      allowPrivateNetworks: env.SOCIAL_ALLOW_PRIVATE_NETWORKS,
      /** How long one request to a platform may take (Nostr's relays have their own bound). */
      requestTimeoutMs: env.SOCIAL_REQUEST_TIMEOUT_SECONDS * 1000,
      /** X: its API and authorization page, and the operator's app (null: X is not configured for OAuth). */
      x: {
        apiUrl: env.X_API_URL.replace(/\/$/, ''),
        authorizeUrl: env.X_AUTHORIZE_URL,
        client: env.X_CLIENT_ID && env.X_CLIENT_SECRET ? { clientId: env.X_CLIENT_ID, clientSecret: env.X_CLIENT_SECRET } : null,
      },
      /**
       * LinkedIn: its REST API, its OAuth endpoints' base, the operator's app (null: not configured), whether that
       * app also has the Community Management API, so that members may connect organisations they administer; or the
       * app that has it alone (`organizationClient`, null: none), as LinkedIn's portal asks.
       */
      linkedin: {
        apiUrl: env.LINKEDIN_API_URL.replace(/\/$/, ''),
        authorizeUrl: env.LINKEDIN_AUTHORIZE_URL,
        organizationAuthors: env.LINKEDIN_ORGANIZATION_AUTHORS,
        client: env.LINKEDIN_CLIENT_ID && env.LINKEDIN_CLIENT_SECRET ? { clientId: env.LINKEDIN_CLIENT_ID, clientSecret: env.LINKEDIN_CLIENT_SECRET } : null,
        organizationClient:
          env.LINKEDIN_ORGANIZATION_CLIENT_ID && env.LINKEDIN_ORGANIZATION_CLIENT_SECRET
            ? { clientId: env.LINKEDIN_ORGANIZATION_CLIENT_ID, clientSecret: env.LINKEDIN_ORGANIZATION_CLIENT_SECRET }
            : null,
      },
      /** Threads: its Graph API, its Authorization Window, and the operator's Threads app (null: not configured). */
      threads: {
        apiUrl: env.THREADS_API_URL.replace(/\/$/, ''),
        authorizeUrl: env.THREADS_AUTHORIZE_URL,
        client: env.THREADS_CLIENT_ID && env.THREADS_CLIENT_SECRET ? { clientId: env.THREADS_CLIENT_ID, clientSecret: env.THREADS_CLIENT_SECRET } : null,
      },
      /**
       * Pinterest: its API (`/v5/…`; https://api-sandbox.pinterest.com for an app with Trial access), its consent page,
       * and the operator's app (null: not configured).
       */
      pinterest: {
        apiUrl: env.PINTEREST_API_URL.replace(/\/$/, ''),
        authorizeUrl: env.PINTEREST_AUTHORIZE_URL,
        client:
          env.PINTEREST_CLIENT_ID && env.PINTEREST_CLIENT_SECRET ? { clientId: env.PINTEREST_CLIENT_ID, clientSecret: env.PINTEREST_CLIENT_SECRET } : null,
      },
      /**
       * YouTube: the Data API (and its upload host), Google's consent page and token endpoint, the operator's Google
       * OAuth client (null: not configured), how many bytes each request of an upload carries, and the units a day
       * its Google Cloud project has.
       */
      youtube: {
        apiUrl: env.YOUTUBE_API_URL.replace(/\/$/, ''),
        authorizeUrl: env.YOUTUBE_AUTHORIZE_URL,
        tokenUrl: env.YOUTUBE_TOKEN_URL,
        client: env.YOUTUBE_CLIENT_ID && env.YOUTUBE_CLIENT_SECRET ? { clientId: env.YOUTUBE_CLIENT_ID, clientSecret: env.YOUTUBE_CLIENT_SECRET } : null,
        uploadChunkBytes: env.YOUTUBE_UPLOAD_CHUNK_KIB * 1024,
        dailyQuota: env.YOUTUBE_DAILY_QUOTA,
      },
      /** Instagram (Instagram Login): its Graph API, its consent window and code exchange, and the operator's Instagram app (null: not configured). */
      instagram: {
        apiUrl: env.INSTAGRAM_API_URL.replace(/\/$/, ''),
        authorizeUrl: env.INSTAGRAM_AUTHORIZE_URL,
        tokenUrl: env.INSTAGRAM_TOKEN_URL,
        client:
          env.INSTAGRAM_CLIENT_ID && env.INSTAGRAM_CLIENT_SECRET ? { clientId: env.INSTAGRAM_CLIENT_ID, clientSecret: env.INSTAGRAM_CLIENT_SECRET } : null,
      },
      /**
       * TikTok: the Open API (and its token endpoint), Login Kit's consent page, the operator's app (its client key as
       * the client id; null: not configured), and how many bytes each chunk of an upload carries.
       */
      tiktok: {
        apiUrl: env.TIKTOK_API_URL.replace(/\/$/, ''),
        authorizeUrl: env.TIKTOK_AUTHORIZE_URL,
        client: env.TIKTOK_CLIENT_KEY && env.TIKTOK_CLIENT_SECRET ? { clientId: env.TIKTOK_CLIENT_KEY, clientSecret: env.TIKTOK_CLIENT_SECRET } : null,
        uploadChunkBytes: env.TIKTOK_UPLOAD_CHUNK_MIB * 1024 * 1024,
      },
      /** Facebook Pages: the Graph API and its Video API host, Facebook Login's dialog, and the operator's Meta app (null: not configured). */
      facebook: {
        apiUrl: env.FACEBOOK_API_URL.replace(/\/$/, ''),
        videoApiUrl: env.FACEBOOK_VIDEO_API_URL.replace(/\/$/, ''),
        authorizeUrl: env.FACEBOOK_AUTHORIZE_URL,
        client: env.FACEBOOK_CLIENT_ID && env.FACEBOOK_CLIENT_SECRET ? { clientId: env.FACEBOOK_CLIENT_ID, clientSecret: env.FACEBOOK_CLIENT_SECRET } : null,
      },
      /** Slack: its Web API (customers bring their own app's bot token, so the operator sets up nothing). */
      slack: { apiUrl: env.SLACK_API_URL.replace(/\/$/, '') },
      /** Telegram: the Bot API's base URL (each bot's methods are under `/bot<token>/`). */
      telegram: { apiUrl: env.TELEGRAM_API_URL.replace(/\/$/, '') },
      /** Discord: its API's base URL, which every webhook URL a customer gives must begin with (`/webhooks/...`). */
      discord: { apiUrl: env.DISCORD_API_URL.replace(/\/$/, '') },
    },
    /** How long an action (generate, render) waits for its workflow before answering 202. */
    apiWaitSeconds: env.API_WAIT_SECONDS,
    /** How long a request holds its Idempotency-Key without renewing it before a retry may take the key over. */
    idempotencyLockSeconds: env.IDEMPOTENCY_LOCK_SECONDS,
    rateLimit: {
      requests: env.RATE_LIMIT_REQUESTS,
      windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
      // Across all of a workspace's keys, so that minting keys does not multiply the limit.
      workspaceRequests: env.RATE_LIMIT_WORKSPACE_REQUESTS ?? 5 * env.RATE_LIMIT_REQUESTS,
      /** Failed authentications per client address per window, before its requests answer 429 unread. */
      authFailuresPerAddress: env.RATE_LIMIT_AUTH_FAILURES,
    },
    apiKeys: { lastUsedFlushSeconds: env.API_KEY_LAST_USED_FLUSH_SECONDS },
    /**
     * OpenTelemetry traces, on when an OTLP endpoint is set. The exporter reads the other standard `OTEL_*`
     * variables (headers, timeouts, resource attributes) itself, as every OpenTelemetry SDK does.
     */
    tracing: {
      enabled: Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
      serviceName: env.OTEL_SERVICE_NAME,
    },
    /**
     * Prometheus endpoints, each on a port of its own and never on the API's: the api's, the worker's own counters,
     * and the Temporal SDK's in the worker (its exporter binds its own port). Loopback unless told otherwise.
     */
    metrics: {
      host: env.METRICS_HOST,
      apiPort: env.METRICS_PORT,
      workerPort: env.WORKER_METRICS_PORT,
      temporalPort: env.TEMPORAL_METRICS_PORT,
    },
  };
}

type ImageProviderEnv = {
  IMAGE_PROVIDER?: 'local' | 'stability' | 'openai' | undefined;
  STABILITY_API_KEY?: string | undefined;
  OPENAI_IMAGES_API_KEY?: string | undefined;
  OPENAI_IMAGES_URL: string;
  OPENAI_IMAGES_AZURE_API_VERSION?: string | undefined;
  OPENAI_IMAGES_AZURE_DEPLOYMENT?: string | undefined;
};

/**
 * IMAGE_PROVIDER, or the provider whose key is set: Stability AI's first, as before the choice was a setting, so a
 * deployment that set only STABILITY_API_KEY sees no change.
 */
function imageProviderOf(env: ImageProviderEnv): 'local' | 'stability' | 'openai' {
  if (env.IMAGE_PROVIDER) return env.IMAGE_PROVIDER;
  if (env.STABILITY_API_KEY) return 'stability';
  return env.OPENAI_IMAGES_API_KEY ? 'openai' : 'local';
}

/** Image provider settings that cannot work together, each naming the variable to fix. */
function imageProviderProblems(env: ImageProviderEnv): Array<{ path: string[]; message: string }> {
  const problems: Array<{ path: string[]; message: string }> = [];
  if (!env.IMAGE_PROVIDER && env.STABILITY_API_KEY && env.OPENAI_IMAGES_API_KEY) {
    problems.push({ path: ['IMAGE_PROVIDER'], message: 'is required when both STABILITY_API_KEY and OPENAI_IMAGES_API_KEY are set (stability or openai)' });
  }
  const provider = imageProviderOf(env);
  if (provider === 'stability' && !env.STABILITY_API_KEY) {
    problems.push({ path: ['STABILITY_API_KEY'], message: 'is required when IMAGE_PROVIDER=stability' });
  }
  if (provider !== 'openai') return problems;
  if (!env.OPENAI_IMAGES_API_KEY) {
    problems.push({ path: ['OPENAI_IMAGES_API_KEY'], message: 'is required when IMAGE_PROVIDER=openai (any value for a server that takes no key)' });
  }
  if (Boolean(env.OPENAI_IMAGES_AZURE_API_VERSION) !== Boolean(env.OPENAI_IMAGES_AZURE_DEPLOYMENT)) {
    const missing = env.OPENAI_IMAGES_AZURE_API_VERSION ? 'OPENAI_IMAGES_AZURE_DEPLOYMENT' : 'OPENAI_IMAGES_AZURE_API_VERSION';
    problems.push({ path: [missing], message: 'Azure OpenAI needs both OPENAI_IMAGES_AZURE_API_VERSION and OPENAI_IMAGES_AZURE_DEPLOYMENT' });
  } else if (env.OPENAI_IMAGES_AZURE_API_VERSION && new URL(env.OPENAI_IMAGES_URL).hostname === 'api.openai.com') {
    problems.push({
      path: ['OPENAI_IMAGES_URL'],
      message: "must be the Azure OpenAI resource's endpoint (https://<resource>.openai.azure.com) with OPENAI_IMAGES_AZURE_API_VERSION",
    });
  }
  return problems;
}

/** The keys that seal and open secrets at rest, the current one first; ENCRYPTION_KEY is the list of one. */
function encryptionKeys(env: { ENCRYPTION_KEYS?: string; ENCRYPTION_KEY?: string }): Buffer[] {
  return env.ENCRYPTION_KEYS === undefined ? [parseEncryptionKey(env.ENCRYPTION_KEY ?? '')] : parseEncryptionKeys(env.ENCRYPTION_KEYS);
}
