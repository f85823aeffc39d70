import type { Client } from '@temporalio/client';
import type { SecretBox } from '../adapters/crypto/secret-box.ts';
import type { ImageProvider } from '../adapters/image-providers/image-provider.ts';
import type { OAuthPlatforms } from '../adapters/social/platform-registry.ts';
import type { SocialConnector, SocialPlatform } from '../adapters/social/social-connector.ts';
import type { ImageLinkProblems } from '../adapters/social/image-links-public-url.ts';
import type { LastingImageLinks } from '../adapters/object-storage/lasting-image-links.ts';
import type { Database } from '../adapters/database/orm.ts';
import type { Logger } from '../logger.ts';
import type { ObjectStorage } from '../adapters/object-storage/object-storage.ts';

/** The long-lived clients of a process: opened once, closed at shutdown (see src/services.ts). */
export type Clients = {
  orm: Database;
  storage: ObjectStorage;
  temporal: Client;
  logger: Logger;
};

/**
 * What use cases and activities need from the outside world: the process's clients and what the configuration
 * says. One shape for the api, the worker, the admin CLI, tests and benchmarks, built by src/services.ts.
 */
export type Deps = Clients & {
  /** The task queue of this deployment's workflows (video encodes go to its `-video` sibling). */
  taskQueue: string;
  /** How long an action (generate, render, publish) waits for its workflow before answering 202. */
  actionWaitMs: number;
  /**
   * How long a request holds its Idempotency-Key without renewing it: a retry of a request whose process died takes
   * the key over after this long (see src/api/middleware/idempotency.ts).
   */
  idempotencyLockMs: number;
  /** Seals webhook secrets and social credentials at rest. */
  secrets: SecretBox;
  /** Seals stored idempotent answers, with a key of its own (they may carry new secrets: API keys, webhook secrets). */
  idempotentAnswers: SecretBox;
  social: Record<SocialPlatform, SocialConnector>;
  /** Whether the operator's configuration lets the service publish to each platform (see configuredPlatforms). */
  socialConfigured: Record<SocialPlatform, boolean>;
  /** The platforms that connect through OAuth 2, with the operator's app where one is configured. */
  oauth: OAuthPlatforms;
  /** The base URL the service is reached at from the internet: OAuth callbacks are `${publicUrl}/oauth/<platform>/callback`. */
  publicUrl: () => string;
  /** Why a platform that fetches a post's image from our links (Threads, Nostr clients) could not, per kind of link. */
  imageLinksProblem: ImageLinkProblems;
  /** Links to stored images that never expire, for a post that keeps its link for ever (a Nostr note). */
  imageLinks: LastingImageLinks;
  /**
   * The rules of a webhook delivery: the worker's deliveries and the test event the api sends itself; how long the
   * event sweep leaves an event to its recorder.
   */
  webhooks: { allowPrivateNetworks: boolean; timeoutMs: number; retryWaitsSeconds: readonly number[]; sweepAfterMs: number };
  images: ImageProvider;
  logoFetch: { allowPrivateNetworks: boolean };
  video: { ffmpegPath: string };
};
