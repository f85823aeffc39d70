// A Bluesky session: the tokens com.atproto.server.createSession (or refreshSession) gave for an account. The access
// token lasts about two hours, the refresh token about ninety days (the reference PDS's lifetimes); both are JWTs
// whose `exp` says when. Bluesky allows 30 createSession calls per account per five minutes and 300 a day, so a
// session is kept with its connection and used until its access token is about to expire.

export type BlueskySession = { accessJwt: string; refreshJwt: string; did: string; handle: string };

// An access token this close to its expiry is renewed first: a publication (look-up, image upload, record) must
// not run out of token halfway, and clocks differ a little.
const expiryMarginMs = 5 * 60_000;

/** The JWT's `exp` in epoch milliseconds, or undefined when it has none or is not a JWT. */
function expiryOf(jwt: string): number | undefined {
  const payload = jwt.split('.')[1];
  if (!payload) return undefined;
  try {
    const { exp } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `jwt` is still good at `now` with the margin; a token without an expiry is used until refused. */
export function isUsable(jwt: string, now: number): boolean {
  const expiry = expiryOf(jwt);
  return expiry === undefined || expiry - expiryMarginMs > now;
}

export function sessionText(session: BlueskySession): string {
  return JSON.stringify(session);
}

/** The session in a store's text; undefined for none, or for one this code cannot read (a new one is made). */
export function sessionOf(text: string | undefined): BlueskySession | undefined {
  if (!text) return undefined;
  try {
    const session = JSON.parse(text) as Partial<BlueskySession>;
    const { accessJwt, refreshJwt, did, handle } = session;
    if (typeof accessJwt !== 'string' || typeof refreshJwt !== 'string' || typeof did !== 'string' || typeof handle !== 'string') return undefined;
    return { accessJwt, refreshJwt, did, handle };
  } catch {
    return undefined;
  }
}
