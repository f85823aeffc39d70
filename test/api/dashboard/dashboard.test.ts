import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumArgs, chromiumPath } from '../../infra/chromium.ts';
import { changePlan } from '../../../src/domain/workspaces/change-plan.ts';
import { apiClient } from '../../support/http.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces.ts';

// Screenshots of every step, kept for people to look at (git-ignored).
const artifactsDir = fileURLToPath(new URL('../../../test-artifacts/dashboard/', import.meta.url));

// The few browser objects the page functions below touch (the project's types have no DOM).
type VideoElement = {
  readyState: number;
  error: { code: number; message: string } | null;
  currentTime: number;
  videoWidth: number;
  videoHeight: number;
  muted: boolean;
  play(): Promise<void>;
};
type ImageElement = { complete: boolean; naturalWidth: number; naturalHeight: number };
type ProgressElement = { value: number; max: number };
type Storage = { length: number; key(index: number): string | null; getItem(key: string): string | null };
type BrowserGlobals = { sessionStorage: Storage; localStorage: Storage };

describe('the dashboard in Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let workspace: TestWorkspace;
  let requestedUrls: string[];
  // Console errors (a CSP refusal shows up there), uncaught exceptions and failed responses.
  let pageProblems: string[];

  beforeAll(async () => {
    mkdirSync(artifactsDir, { recursive: true });
    app = await startTestApp();
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  beforeEach(async () => {
    workspace = await createTestWorkspace(app, 'growth', 'Acme Studio');
    context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    page = await context.newPage();
    requestedUrls = [];
    pageProblems = [];
    page.on('request', (request) => requestedUrls.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') pageProblems.push(message.text());
    });
    page.on('pageerror', (error) => pageProblems.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) pageProblems.push(`${response.status()} ${response.url()}`);
    });
  });

  afterEach(async () => {
    await context?.close();
  });

  async function screenshot(name: string) {
    await page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: true });
  }

  async function logIn(key: string) {
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  function storedKeys() {
    return page.evaluate(() => {
      const { sessionStorage, localStorage } = globalThis as unknown as BrowserGlobals;
      const values = (storage: Storage) => Array.from({ length: storage.length }, (_, index) => storage.getItem(storage.key(index) ?? ''));
      return { session: values(sessionStorage), local: values(localStorage) };
    });
  }

  function videoProgress() {
    return Promise.all([
      page.getByRole('progressbar', { name: 'Video progress' }).evaluate((progress: ProgressElement) => progress.value),
      page.locator('#video-message').textContent(),
    ]).then(([value, message]) => ({ value, message: message ?? '' }));
  }

  // A whole session in a real browser, with a real video rendered by ffmpeg: about 30 s on the 2-core machine when the
  // suite runs beside it, so the suite's 30 s default is no bound for it.
  it('when a person logs in, creates and generates a post and starts its video, then they watch it finish and play it', { timeout: 120_000 }, async () => {
    await page.goto(`${app.url}/dashboard/`);
    await screenshot('01-login');
    await logIn(workspace.key);
    await page.getByText('Acme Studio (growth plan)').waitFor();
    expect(await storedKeys()).toEqual({ session: [workspace.key], local: [] });
    await screenshot('02-logged-in');

    // A new workspace has no project: the form for one is open.
    await page.getByLabel('Project name').fill('Autumn campaign');
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect
      .poll(() =>
        page.getByLabel('Project', { exact: true }).evaluate((select: { selectedOptions: Array<{ text: string }> }) => select.selectedOptions[0]?.text),
      )
      .toBe('Autumn campaign');

    await page.getByLabel('Title').fill('Autumn sale');
    await page.getByLabel('Prompt', { exact: true }).fill('Golden leaves over a cosy shop window');
    await page.getByRole('button', { name: 'Create post' }).click();
    await page.getByRole('heading', { level: 2, name: 'Autumn sale' }).waitFor();
    await page
      .getByRole('list', { name: 'Posts' })
      .getByRole('button', { name: /Autumn sale/ })
      .waitFor();
    const { body: posts } = await workspace.client.get<Array<{ id: string; title: string }>>('/posts');
    expect(posts.map((post) => post.title)).toEqual(['Autumn sale']);
    const postId = posts[0]!.id;
    await screenshot('03-post-created');

    await page.getByLabel('Format').selectOption('9:16');
    await page.getByRole('button', { name: 'Generate' }).click();
    const image = page.getByRole('img', { name: 'Image of the post “Autumn sale”' });
    await expect
      .poll(() => image.evaluate((img: ImageElement) => img.complete && [img.naturalWidth, img.naturalHeight]), { timeout: 60_000 })
      .toEqual([1080, 1920]);
    await page.getByRole('button', { name: 'Restore version 1' }).waitFor();
    const { body: generated } = await workspace.client.get<{ format: string; imageUrl: string | null }>(`/posts/${postId}`);
    expect(generated).toMatchObject({ format: '9:16', imageUrl: expect.any(String) });
    await screenshot('04-generated');

    await page.getByRole('button', { name: 'Start video' }).click();
    // Watch the progress as a person would: every state shown until the job is done.
    const seen: Array<{ value: number; message: string }> = [];
    await expect
      .poll(
        async () => {
          const state = await videoProgress();
          if (state.message && state.message !== seen.at(-1)?.message) {
            seen.push(state);
            if (state.value > 0 && state.value < 100 && !seen.slice(0, -1).some((earlier) => earlier.value > 0)) await screenshot('05-video-progress');
          }
          return state.message;
        },
        { timeout: 120_000, interval: 100 },
      )
      .toMatch(/^Done/);
    expect(seen.at(-1)?.value).toBe(100);
    expect(seen.slice(0, -1).map((state) => state.message)).toContainEqual(expect.stringMatching(/^(Waiting|Preparing|Encoding)/));
    const values = seen.map((state) => state.value);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    // The bar shows the percentage the message gives.
    for (const state of seen) {
      const percent = /(\d+)%/.exec(state.message)?.[1];
      if (percent) expect(state.value).toBe(Number(percent));
    }

    const video = page.locator('video');
    await expect.poll(() => video.evaluate((element: VideoElement) => element.readyState), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    expect(await video.evaluate((element: VideoElement) => element.error)).toBeNull();
    expect(await video.evaluate((element: VideoElement) => [element.videoWidth, element.videoHeight])).toEqual([1080, 1920]);
    // Muted: Chromium lets a page start muted media without a click.
    await video.evaluate((element: VideoElement) => {
      element.muted = true;
      return element.play();
    });
    // Past the fade from black and the title's fade-in, so the screenshot shows the picture.
    await expect.poll(() => video.evaluate((element: VideoElement) => element.currentTime), { timeout: 30_000 }).toBeGreaterThan(1.5);
    await screenshot('06-video-playing');

    const { body: withVideo } = await workspace.client.get<{ hasVideo: boolean }>(`/posts/${postId}`);
    expect(withVideo.hasVideo).toBe(true);
    const hosts = new Set(requestedUrls.map((url) => new URL(url).hostname));
    expect([...hosts].filter((host) => host !== '127.0.0.1' && host !== 'localhost')).toEqual([]);
    expect(pageProblems).toEqual([]);
  });

  it('when a person renders a post, restores its first version, schedules and publishes it, then the page and the service agree', async () => {
    // Berlin is UTC+1 in January: the page must send the local time it was given as UTC.
    await context.close();
    context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, timezoneId: 'Europe/Berlin' });
    page = await context.newPage();
    const { body: project } = await workspace.client.post<{ id: string }>('/projects', { name: 'Winter' });
    const { body: post } = await workspace.client.post<{ id: string }>('/posts', { title: 'Snow day', prompt: 'A quiet snowy street', projectId: project.id });
    expect((await workspace.client.post(`/posts/${post.id}/generate`, { format: '16:9' })).status).toBe(200);

    await page.goto(`${app.url}/dashboard/`);
    await logIn(workspace.key);
    const card = page.getByRole('list', { name: 'Posts' }).getByRole('button', { name: /Snow day/ });
    await expect.poll(() => card.locator('img').evaluate((img: ImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await card.click();
    await page.getByRole('heading', { level: 2, name: 'Snow day' }).waitFor();

    await page.getByRole('button', { name: 'Render' }).click();
    await page.getByRole('button', { name: 'Restore version 2' }).waitFor({ timeout: 60_000 });
    expect(await page.getByRole('listitem').filter({ hasText: 'Version 2' }).textContent()).toContain('rendered');

    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByRole('button', { name: 'Restore version 3' }).waitFor();
    expect(await page.getByRole('listitem').filter({ hasText: 'Version 3' }).textContent()).toContain('restored');
    await screenshot('08-versions');

    await page.getByLabel('Publish at (your local time)').fill('2030-01-15T10:00');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await expect.poll(() => page.locator('#post-meta').textContent()).toContain('Status: scheduled');
    const { body: scheduled } = await workspace.client.get<{ status: string; scheduledAt: string }>(`/posts/${post.id}`);
    expect(scheduled).toMatchObject({ status: 'scheduled', scheduledAt: '2030-01-15T09:00:00.000Z' });

    await page.getByRole('button', { name: 'Publish now' }).click();
    await expect.poll(() => page.locator('#post-meta').textContent(), { timeout: 60_000 }).toContain('Status: published');
    const { body: published } = await workspace.client.get<{ status: string; publishedAt: string | null }>(`/posts/${post.id}`);
    expect(published).toMatchObject({ status: 'published', publishedAt: expect.any(String) });
    expect(await card.textContent()).toContain('published');
    await screenshot('09-published');
    expect(pageProblems).toEqual([]);
  });

  it('when a person on Starter opens Settings, then they see the keys made on Growth and revoke one, which stops working at once', async () => {
    const shop = await createTestWorkspace(app, 'growth', 'Corner Shop');
    const { body: leaked } = await shop.client.post<{ id: string; key: string; prefix: string }>('/api-keys', { name: 'Leaked key' });
    await changePlan(app.api.services, shop.id, 'starter');

    await page.goto(`${app.url}/dashboard/`);
    await logIn(shop.key);
    await page.getByText('Corner Shop (starter plan)').waitFor();
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 2, name: 'Settings' }).waitFor();
    const keys = page.getByRole('list', { name: 'API keys' }).getByRole('listitem');
    await expect.poll(() => keys.count()).toBe(2);
    expect(await keys.first().textContent()).toContain(`Leaked key${leaked.prefix}…`);
    expect(await page.getByText('Creating API keys needs the Growth plan.').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Create key' }).isVisible()).toBe(false);
    await screenshot('10-settings-starter');

    await page.getByRole('button', { name: 'Revoke Leaked key' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Leaked key was revoked: it no longer works.');
    await expect.poll(() => keys.count()).toBe(1);
    expect((await apiClient(app.url, leaked.key).get('/projects')).status).toBe(401);
    expect((await shop.client.get('/projects')).status).toBe(200);
    await screenshot('11-settings-revoked');

    await page.getByRole('button', { name: 'Back to posts' }).click();
    await page.getByRole('heading', { level: 2, name: 'Projects and posts' }).waitFor();
    expect(pageProblems).toEqual([]);
  });

  it('when a person on Growth creates a key in Settings, then its secret is shown once and works', async () => {
    await page.goto(`${app.url}/dashboard/`);
    await logIn(workspace.key);
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Key name').fill('CI pipeline');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('CI pipeline was created: copy its key now, it is shown only once.');
    const secret = (await page.locator('#new-api-key-secret').textContent()) ?? '';
    expect(secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect((await apiClient(app.url, secret).get('/projects')).status).toBe(200);
    await expect.poll(() => page.getByRole('list', { name: 'API keys' }).getByRole('listitem').count()).toBe(2);
    expect(pageProblems).toEqual([]);
  });

  it('when the key is wrong, then the service says why and the login form stays', async () => {
    await page.goto(`${app.url}/dashboard/`);
    await logIn(`sk_${'x'.repeat(43)}`);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Unknown API key.');
    expect(await page.getByRole('button', { name: 'Log in' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(false);
    expect(await storedKeys()).toEqual({ session: [], local: [] });
    await screenshot('07-wrong-key');
  });

  it('when a person logs out, then the key is forgotten and the login form is back', async () => {
    await page.goto(`${app.url}/dashboard/`);
    await logIn(workspace.key);
    await page.getByText('Acme Studio (growth plan)').waitFor();
    // The key lasts the tab's session: a reload stays logged in.
    await page.reload();
    await page.getByText('Acme Studio (growth plan)').waitFor();

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await storedKeys()).toEqual({ session: [], local: [] });
    await page.reload();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(await page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(false);
  });
});
