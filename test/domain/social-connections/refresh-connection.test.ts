import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../../src/adapters/crypto/secret-box.ts';
import { SocialConnection } from '../../../src/adapters/database/entities/social-connection.ts';
import { openDatabase } from '../../../src/adapters/database/orm.ts';
import { WorkspaceEvent } from '../../../src/adapters/database/entities/workspace-event.ts';
import { createOAuthPlatforms } from '../../../src/adapters/social/platform-registry.ts';
import { SocialUnavailableError } from '../../../src/adapters/social/social-connector.ts';
import { refreshConnection } from '../../../src/domain/social-connections/refresh-connection.ts';
import { startXServer, type XServer } from '../../fakes/x-server.ts';
import { eventually } from '../../support/eventually.ts';
import { failureOf } from '../../support/failure-of.ts';
import { createPostFixture } from '../../support/post-fixtures.ts';
import { testConfig } from '../../support/test-config.ts';
import { useTestDatabase, withClient } from '../../support/test-database.ts';
import { createXConnectionFixture, storedXCredentials, xEnv, xTokens } from '../../support/x-connections.ts';

// Refreshing under the row's refresh lease: whoever refreshes second (the workflow, a publish, a verify, on any
// replica) never spends a refresh token the first already rotated away, so a race is never taken for a dead
// connection, and no database session stays in a transaction while X answers.

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

  it('when two replicas refresh one connection while X takes its time, then X is asked once and no database session idles in a transaction meanwhile', async () => {
    const connection = await connectionDueNow();
    // A second replica: its own pool, as another worker process has.
    const replica = await openDatabase(database.url, 2);
    try {
      x.requests.length = 0;
      x.script('token', [{ delayMs: 2_000 }]);
      const refreshes = [database.orm, replica].map((orm) => refreshConnection({ ...deps, orm }, connection.id));
      await eventually(() => Promise.resolve(expect(refreshRequests()).toHaveLength(1)));
      // X holds its answer now: a refresh that kept its transaction open would show here.
      const idle = await withClient(database.url, async (client) => {
        const { rows } = await client.query<{ sessions: number }>(
          "select count(*)::int as sessions from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'",
        );
        return rows[0]!.sessions;
      });
      const outcomes = await Promise.all(refreshes);

      expect(idle).toBe(0);
      expect(outcomes.map((outcome) => outcome.state)).toEqual(['active', 'active']);
      // The second refresh waited for the lease, then found the tokens the first stored: the refresh token was spent once.
      expect(refreshRequests()).toHaveLength(1);
      expect((await storedXCredentials(database.orm, config, connection.id)).refreshToken).toBe(x.currentRefreshToken());
      const row = await database.orm.em.fork().findOneOrFail(SocialConnection, connection.id);
      expect({ status: row.status, leaseOwner: row.refreshLeaseOwner }).toEqual({ status: 'active', leaseOwner: null });
    } finally {
      await replica.close();
    }
  });
});
