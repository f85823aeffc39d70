import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startMastodonServer, type MastodonServer } from '../fakes/mastodon-server.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// A publish target's attempts, as the publish path records them, through the API with the real worker on the
// Temporal dev server and the Mastodon fake: what each attempt ended with, and when the next one was due.

type Target = Schemas['PublishTarget'];

let mastodon: MastodonServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let connectionId: string;

beforeAll(async () => {
  mastodon = await startMastodonServer();
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true', API_WAIT_SECONDS: '30' },
    project: 'Attempts',
  }));
  connectionId = (
    await workspace.client.post<{ id: string }>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token })
  ).body.id;
});
afterAll(async () => {
  await app?.stop();
  await mastodon?.close();
});

/** Publishes a new post to the connection now and answers its target, once the publication has ended. */
async function publish(title: string): Promise<Target> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title, prompt: 'A lighthouse in fog', projectId })).body.id;
  const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId] });
  expect(response.status).toBe(200);
  const listed = await workspace.client.get<Target[]>(`/posts/${id}/publish-targets`);
  expect(listed.body).toEqual(response.body);
  return response.body[0]!;
}

const statusesWith = (title: string) => mastodon.statuses.filter((status) => status.text === title);

describe('publish target attempts', () => {
  it('when Mastodon fails, then rate-limits, then takes the post, then each attempt is listed and each retry came no sooner than its nextAttemptAt', async () => {
    mastodon.script('statuses', [{ status: 503 }, { status: 429, retryAfter: '2' }]);
    const target = await publish('Fog horn at noon');
    expect(target.status).toBe('Published');
    const [unavailable, rateLimited, published] = target.attempts;
    expect(target.attempts.map(({ outcome, detail }) => [outcome, detail])).toEqual([
      ['unavailable', 'The platform could not be reached, or answered with an error of its own.'],
      ['rate_limited', 'The platform asked us to slow down (its rate limit).'],
      ['published', 'Published on the platform.'],
    ]);
    // The retry policy's first interval (socialPublish: 5 s), then the wait Mastodon's Retry-After asked for.
    expect(Date.parse(unavailable!.nextAttemptAt!) - Date.parse(unavailable!.at)).toBeGreaterThanOrEqual(5_000);
    expect(Date.parse(rateLimited!.nextAttemptAt!) - Date.parse(rateLimited!.at)).toBeGreaterThanOrEqual(2_000);
    expect(Date.parse(rateLimited!.at)).toBeGreaterThanOrEqual(Date.parse(unavailable!.nextAttemptAt!));
    expect(Date.parse(published!.at)).toBeGreaterThanOrEqual(Date.parse(rateLimited!.nextAttemptAt!));
    expect(published!.nextAttemptAt).toBeNull();
    expect(statusesWith('Fog horn at noon')).toHaveLength(1);
  });

  it('when Mastodon refuses the post, then the target lists one refused attempt with its reason and no next attempt', async () => {
    mastodon.script('statuses', [{ status: 422, error: 'Validation failed: Text character limit of 500 exceeded' }]);
    const target = await publish('Too long, as the fake says');
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringContaining('character limit') });
    expect(target.attempts).toEqual([
      {
        at: expect.any(String),
        outcome: 'refused',
        detail: 'Mastodon refused the post (422): Validation failed: Text character limit of 500 exceeded',
        nextAttemptAt: null,
        // Only a post sent to several servers at once (Nostr relays) has their answers.
        answers: null,
      },
    ]);
  });

  it("when Mastodon's answer to the post is lost after it made the status, then the retry sends the same Idempotency-Key and one status is published", async () => {
    mastodon.script('statuses', [{ dropped: true }]);
    const target = await publish('Lost answer at the harbour');
    expect(target.status).toBe('Published');
    expect(target.attempts.map(({ outcome }) => outcome)).toEqual(['unknown', 'published']);
    expect(target.attempts[0]!.detail).toContain('no answer came');
    expect(Date.parse(target.attempts[1]!.at)).toBeGreaterThanOrEqual(Date.parse(target.attempts[0]!.nextAttemptAt!));
    const statuses = statusesWith('Lost answer at the harbour');
    expect(statuses).toHaveLength(1);
    expect(target.externalPostId).toBe(statuses[0]!.id);
  });
});
