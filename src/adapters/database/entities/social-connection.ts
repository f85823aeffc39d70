import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { socialPlatforms, type ConnectionSettings } from '../../social/social-connector.ts';
import { createdAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

const connectionStatuses = ['active', 'needs_reauth'] as const;

/** A customer's account on a social platform that posts can be published to. */
export const SocialConnection = defineEntity({
  name: 'SocialConnection',
  tableName: 'social_connections',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    platform: p.enum(socialPlatforms),
    /** The Mastodon instance or Bluesky service (PDS) URL. */
    serverUrl: p.text(),
    /** Who the credentials belong to, as the platform said when they were checked. */
    accountName: p.string().length(300),
    accountId: p.string().length(300),
    /** The credentials (token or app password), sealed with the current key of ENCRYPTION_KEYS; never returned. */
    credentialsSealed: p.text(),
    /**
     * The platform session the connector keeps between publications (Bluesky's access and refresh tokens), sealed
     * like the credentials; null until there is one. Written only by the holder of the session lease
     * (src/adapters/social/connection-sessions.ts).
     */
    sessionSealed: p.text().nullable(),
    /**
     * The session lease: who renews the session now (a token of that renewal, never a secret) and until when at most.
     * Held while the platform answers, instead of a lock or a transaction (connection-leases.ts says why).
     */
    sessionLeaseOwner: p.uuid().nullable(),
    sessionLeaseUntil: p.datetime().nullable(),
    /** The refresh lease: the same for refreshing the OAuth tokens in the credentials (refresh-connection.ts). */
    refreshLeaseOwner: p.uuid().nullable(),
    refreshLeaseUntil: p.datetime().nullable(),
    /** Bluesky: the BCP 47 tag its posts are marked with (`langs`), when the customer gave one. */
    postLanguage: p.string().length(35).nullable(),
    /**
     * Where the posts go, on a platform whose account has several places (a Pinterest board): the platform's id and
     * name, chosen after connecting; null until then. Kept apart from the sealed credentials, so that choosing it never
     * races a token refresh writing them; the connector gets it with the credentials (fresh-credentials.ts).
     */
    destinationId: p.string().length(300).nullable(),
    destinationName: p.string().length(300).nullable(),
    /** How the posts are published, where the platform takes settings (YouTube's visibility); null until set. Kept apart like the destination. */
    settings: p.json<ConnectionSettings>().nullable(),
    /** `needs_reauth`: the platform refused the connection's tokens for good; only connecting the account again helps. */
    status: p.enum(connectionStatuses).default('active'),
    /** OAuth connections: when the access token in the credentials expires (its keep-alive workflow refreshes it before). */
    expiresAt: p.datetime().nullable(),
    /** Why the connection needs the person again, in the platform's words. */
    lastError: p.text().nullable(),
    ...createdAt,
  },
  indexes: [{ properties: ['workspaceId', 'createdAt'] }],
});
export type SocialConnection = InferEntity<typeof SocialConnection>;
