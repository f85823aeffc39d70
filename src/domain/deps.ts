import type { Client } from '@temporalio/client';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { SocialConnector, SocialPlatform } from '../social/social-connector.ts';
import type { Database } from '../data/orm.ts';
import type { Logger } from '../logger.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';

/** What use cases need from the outside world, built once per process (see src/services.ts). */
export type Deps = {
  orm: Database;
  storage: ObjectStorage;
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  /** How long an action (generate, render, publish) waits for its workflow before answering 202. */
  actionWaitMs: number;
  /** Seals webhook secrets and social credentials at rest. */
  secrets: SecretBox;
  social: Record<SocialPlatform, SocialConnector>;
  /** The rules of a webhook delivery, for the test event the API sends itself (POST /webhooks/{id}/test). */
  webhooks: { allowPrivateNetworks: boolean; timeoutMs: number };
};
