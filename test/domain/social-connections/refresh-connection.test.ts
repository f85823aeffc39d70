import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../../src/adapters/crypto/secret-box.ts';
import { SocialConnection } from '../../../src/adapters/database/entities/social-connection.ts';
import { WorkspaceEvent } from '../../../src/adapters/database/entities/workspace-event.ts';
import { createOAuthPlatforms } from '../../../src/adapters/social/platform-registry.ts';
import { SocialUnavailableError } from '../../../src/adapters/social/social-connector.ts';
import { refreshConnection } from '../../../src/domain/social-connections/refresh-connection.ts';
import { startXServer, type XServer } from '../../fakes/x-server.ts';
import { failureOf } from '../../support/failure-of.ts';
import { createPostFixture } from '../../support/post-fixtures.ts';
import { testConfig } from '../../support/test-config.ts';
import { useTestDatabase } from '../../support/test-database.ts';
import { createXConnectionFixture, storedXCredentials, xEnv, xTokens } from '../../support/x-connections.ts';

// Refreshing under the row's lock: whoever refreshes second (the workflow, a publish, a verify) never spends a
// refresh token the first already rotated away, so a race is never taken for a dead connection.

const database = useTestDatabase();
let x: XServer;
let deps: Parameters<typeof refreshConnection>[0];
let config: ReturnType<typeof testConfig>;

beforeAll(async () => {
  x = await startXServer();
  config = testConfig(database.url, xEnv(x));
  deps = { orm: database.orm, secrets: createSecretBox(config.secrets.encryptionKeys, 'secrets'), oauth: createOAuthPlatforms(config.social) };
});
beforeEach(() => {
  x.requests.length = 0;
});
afterAll(() => x?.close());

async function connectionDueNow() {
  const { workspaceId } = await createPostFixture(database.orm);
  return createXConnectionFixture(database.orm, config, { workspaceId, x, tokens: await xTokens(x), expiresAt: Date.now() + 60_000 });
}

const refreshRequests = () => x.requests.filter((request) => request.path === '/2/oauth2/token');

describe('refreshConnection', () => {
  it('when three refreshes of one connection race, then X is asked once, all three find the connection active with the new tokens', async () => {
    const connection = await connectionDueNow();
    x.requests.length = 0;
    const outcomes = await Promise.all([1, 2, 3].map(() => refreshConnection(deps, connection.id)));

    expect(outcomes.map((outcome) => outcome.state)).toEqual(['active', 'active', 'active']);
    expect(refreshRequests()).toHaveLength(1);
    expect((await storedXCredentials(database.orm, config, connection.id)).refreshToken).toBe(x.currentRefreshToken());
    expect((await database.orm.em.fork().findOneOrFail(SocialConnection, connection.id)).status).toBe('active');
  });

  it('when two forced refreshes race, then the second uses the refresh token the first stored, and both succeed', async () => {
    const connection = await connectionDueNow();
    const first = (await storedXCredentials(database.orm, config, connection.id)).refreshToken;
    x.requests.length = 0;
    const outcomes = await Promise.all([1, 2].map(() => refreshConnection(deps, connection.id, { force: true })));

    expect(outcomes.map((outcome) => outcome.state)).toEqual(['active', 'active']);
    expect(refreshRequests()).toHaveLength(2);
    // The first refresh retired the original token, the second the one the first stored: none was spent twice.
    expect(x.retiredRefreshTokens.slice(-2)[0]).toBe(first);
    expect((await storedXCredentials(database.orm, config, connection.id)).refreshToken).toBe(x.currentRefreshToken());
    expect((await database.orm.em.fork().findOneOrFail(SocialConnection, connection.id)).status).toBe('active');
  });

  it('when X is down, then the refresh throws an outage and changes nothing: no needs_reauth, no event', async () => {
    const connection = await connectionDueNow();
    const before = await storedXCredentials(database.orm, config, connection.id);
    x.script('token', [{ status: 503 }]);
    await failureOf(refreshConnection(deps, connection.id), SocialUnavailableError);
    const row = await database.orm.em.fork().findOneOrFail(SocialConnection, connection.id);
    expect({ status: row.status, lastError: row.lastError }).toEqual({ status: 'active', lastError: null });
    expect(await storedXCredentials(database.orm, config, connection.id)).toEqual(before);
    expect(await database.orm.em.fork().count(WorkspaceEvent, { workspaceId: connection.workspaceId })).toBe(0);
  });
});
