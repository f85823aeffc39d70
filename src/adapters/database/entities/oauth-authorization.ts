import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { socialPlatforms } from '../../social/social-connector.ts';
import { createdAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

/**
 * An OAuth authorization under way: made by POST /social-connections/authorizations, confirmed by the person on our
 * consent page, used once by the platform's redirect to our callback (deleted as it is read), worthless ten minutes
 * after it was made.
 */
export const OAuthAuthorization = defineEntity({
  name: 'OAuthAuthorization',
  tableName: 'oauth_authorizations',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    platform: p.enum(socialPlatforms),
    /** SHA-256 (hex) of the `state` handed out: the state itself, a bearer secret, is never stored. */
    stateHash: p.string().length(64).unique(),
    /** The PKCE verifier, sealed like credentials. */
    codeVerifierSealed: p.text(),
    /** Where the person is sent back to, from the workspace's allow-list. */
    redirectUri: p.text(),
    /** Who the connection is to post as, when the client named someone other than the person (a LinkedIn organisation). */
    author: p.text().nullable(),
    /**
     * `authors`: the authorization went through the platform's app for authors (OAuthSetup.authorsApp), whose client
     * must exchange its code, whatever the configuration says by the time the person comes back.
     */
    app: p.enum(['authors']).nullable(),
    expiresAt: p.datetime().index(),
    /**
     * When the person pressed Continue on our consent page, which names the workspace asking: the callback completes
     * only a confirmed authorization, so a link that skipped the page (straight to the platform) connects nothing.
     */
    confirmedAt: p.datetime().nullable(),
    /**
     * SHA-256 of the secret our consent page's Continue left in that browser (a cookie): the callback completes the
     * authorization only in the browser that confirmed it, so whoever made the link cannot press Continue themselves
     * and hand the person the platform's page alone. The last Continue pressed holds it.
     */
    consentBrowserHash: p.string().nullable(),
    ...createdAt,
  },
});
export type OAuthAuthorization = InferEntity<typeof OAuthAuthorization>;
