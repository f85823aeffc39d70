import { imageLinkProblems } from './adapters/social/image-links-public-url.ts';
import { createLastingImageLinks } from './adapters/object-storage/lasting-image-links.ts';
import { publicBaseUrl, type Config } from './config.ts';
import { createSecretBox } from './adapters/crypto/secret-box.ts';
import { openDatabase } from './adapters/database/orm.ts';
import { requireMigratedSchema } from './adapters/database/schema-version.ts';
import type { Clients, Deps } from './domain/deps.ts';
import { createImageProvider } from './adapters/image-providers/create-image-provider.ts';
import { createLogger } from './logger.ts';
import { logRefusedAddresses } from './adapters/net/public-address-policy.ts';
import { configuredPlatforms, createOAuthPlatforms, createSocialConnectors } from './adapters/social/platform-registry.ts';
import { createStorage } from './adapters/object-storage/create-storage.ts';
import { connectTemporalClient, lazyTemporalClient } from './adapters/temporal/connect.ts';

// The composition root: the one place that turns configuration into the `deps` every use case and activity takes.
// The api, the worker, the admin CLI, tests and benchmarks all build their deps here; what differs between them is
// only which clients they open themselves and which they are given.

export type Services = Deps & { close(): Promise<void> };

export type ServicesOptions = {
  /** The process's name in its log lines (api, worker, admin). */
  name: string;
  /** The base URL of signed links; a function because a server started on port 0 learns its port after listening. */
  publicUrl?: () => string;
  /**
   * `cli`: a command-line tool (the admin CLI): logs go to stderr (stdout is the command's result), Temporal is
   * reached on first use and storage is not prepared, since most commands need neither.
   */
  role?: 'service' | 'cli';
  /** A file for the process's logs instead of stdout (see createLogger). */
  logFile?: string;
};

/** Opens the process's clients (database pool, object storage, Temporal client, logger) and builds its deps. */
export async function createServices(config: Config, options: ServicesOptions): Promise<Services> {
  const cli = options.role === 'cli';
  const logger = createLogger({ level: config.logLevel, name: options.name, format: config.logFormat, stderr: cli, file: options.logFile });
  const orm = await openDatabase(config.database.url, config.database.poolMax);
  await requireMigratedSchema(orm).catch(async (error: unknown) => {
    await orm.close();
    throw error;
  });
  const temporal = cli
    ? lazyTemporalClient(config.temporal)
    : await connectTemporalClient(config.temporal).catch(async (error: unknown) => {
        await orm.close();
        throw error;
      });
  const publicUrl = options.publicUrl ?? (() => publicBaseUrl(config.http));
  const storage = createStorage(config.storage, publicUrl);
  if (!cli) await storage.prepare();
  const stopLoggingRefusedAddresses = logRefusedAddresses(logger);
  return {
    ...assembleDeps(config, { orm, temporal, logger, storage }, publicUrl),
    async close() {
      stopLoggingRefusedAddresses();
      await temporal.connection.close();
      await orm.close();
    },
  };
}

/**
 * Deps from clients that are already open: what createServices does after opening its own, and what a test does
 * with clients of its own (the time-skipping server's client, a storage that fails on purpose).
 */
export function assembleDeps(config: Config, clients: Clients, publicUrl: () => string = () => publicBaseUrl(config.http)): Deps {
  return {
    ...clients,
    taskQueue: config.temporal.taskQueue,
    actionWaitMs: config.apiWaitSeconds * 1000,
    idempotencyLockMs: config.idempotencyLockSeconds * 1000,
    secrets: createSecretBox(config.secrets.encryptionKeys, 'secrets'),
    idempotentAnswers: createSecretBox(config.secrets.encryptionKeys, 'idempotent-answers'),
    social: createSocialConnectors(config.social),
    ...oauthOf(config.social),
    publicUrl,
    imageLinksProblem: imageLinkProblems(config),
    imageLinks: createLastingImageLinks(config.storage.urlSigningSecret, publicUrl),
    webhooks: config.webhooks,
    images: createImageProvider(config.generation),
    logoFetch: config.generation.logoFetch,
    video: config.video,
  };
}

/** The OAuth platforms with the operator's apps, and which platforms the operator's configuration lets publish. */
function oauthOf(config: Config['social']): Pick<Deps, 'oauth' | 'socialConfigured'> {
  const oauth = createOAuthPlatforms(config);
  return { oauth, socialConfigured: configuredPlatforms(oauth) };
}
