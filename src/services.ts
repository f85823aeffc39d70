import type { Config } from './config.ts';
import { createSecretBox } from './crypto/secret-box.ts';
import { createSocialConnectors } from './social/create-social-connectors.ts';
import { openDatabase } from './data/orm.ts';
import type { Deps } from './domain/deps.ts';
import { createLogger } from './logger.ts';
import { logRefusedAddresses } from './net/public-fetch.ts';
import { createStorage } from './storage/create-storage.ts';
import { connectTemporalClient } from './temporal/connect.ts';

export type Services = Deps & { close(): Promise<void> };

/**
 * Builds the long-lived clients a process needs (database pool, object storage, Temporal client, logger). The
 * public base URL is a function because a server started on port 0 learns its address only after listening.
 */
export async function createServices(config: Config, options: { name: string; publicUrl: () => string }): Promise<Services> {
  const logger = createLogger({ level: config.logLevel, name: options.name, format: config.logFormat });
  const orm = await openDatabase(config.database.url, config.database.poolMax);
  const temporal = await connectTemporalClient(config.temporal).catch(async (error: unknown) => {
    await orm.close();
    throw error;
  });
  const storage = createStorage(config.storage, options.publicUrl);
  await storage.prepare();
  const stopLoggingRefusedAddresses = logRefusedAddresses(logger);
  return {
    orm,
    temporal,
    logger,
    taskQueue: config.temporal.taskQueue,
    actionWaitMs: config.apiWaitSeconds * 1000,
    secrets: createSecretBox(config.secrets.encryptionKey),
    social: createSocialConnectors(config.social),
    webhooks: config.webhooks,
    storage,
    async close() {
      stopLoggingRefusedAddresses();
      await temporal.connection.close();
      await orm.close();
    },
  };
}
