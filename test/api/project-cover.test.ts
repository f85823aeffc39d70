import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { Project } from '../../src/adapters/database/entities/project.ts';
import { eventually } from '../support/eventually.ts';
import { makeBlankPng, makeImage } from '../support/images.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

type Problem = Schemas['Problem'];

let app: TestApp;
let workspace: TestWorkspace;

beforeAll(async () => {
  ({ app, workspace } = await startAppWithWorkspace());
});
afterAll(() => app?.stop());

async function newProject(client = workspace.client): Promise<string> {
  return (await client.post<{ id: string }>('/projects', { name: 'Covered' })).body.id;
}

function form(bytes: Buffer, name = 'cover.png', type = 'image/png', field = 'file'): FormData {
  const data = new FormData();
  data.append(field, new Blob([new Uint8Array(bytes)], { type }), name);
  return data;
}

const boundary = 'test-boundary';
const closing = Buffer.from(`\r\n--${boundary}--\r\n`);

function filePartHead(field: string, filename: string): Buffer {
  return Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`);
}

function filePart(field: string, filename: string, bytes: Buffer): Buffer {
  return Buffer.concat([filePartHead(field, filename), bytes]);
}

function textPart(field: string, value: string): Buffer {
  return Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}`);
}

/** Sends the chunks as a chunked body: no Content-Length, so only limits on what is read can stop it. */
async function postStreamed(projectId: string, chunks: Buffer[]): Promise<{ status: number; body: Problem }> {
  const queue = [...chunks];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  const response = await fetch(`${app.url}/api/v1/projects/${projectId}/cover`, {
    method: 'POST',
    headers: { authorization: `Bearer ${workspace.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: 'half',
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Problem };
}

async function coverKeyOf(projectId: string): Promise<string | null | undefined> {
  return (await app.api.services.orm.em.fork().findOneOrFail(Project, projectId)).coverKey;
}

async function expectObjectGone(key: string) {
  await eventually(async () => expect(await app.storage.get(key)).toBeNull());
}

describe('POST /projects/{id}/cover', () => {
  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['webp', 'image/webp'],
  ] as const)('when a %s image is uploaded, then coverUrl is absolute and serves the bytes', async (format, contentType) => {
    const id = await newProject();
    const bytes = await makeImage(format);
    const response = await workspace.client.post<Schemas['UploadProjectCoverResponse']>(`/projects/${id}/cover`, form(bytes));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id, name: 'Covered', coverUrl: expect.stringMatching(/^http:\/\/localhost:\d+\/files\//) });

    const image = await fetch(response.body.coverUrl);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe(contentType);
    expect(Buffer.from(await image.arrayBuffer()).equals(bytes)).toBe(true);

    const project = await workspace.client.get<Schemas['Project']>(`/projects/${id}`);
    expect(project.body.coverUrl).toMatch(/^http:\/\/localhost:\d+\/files\/.+signature=/);
  });

  it('when the name and declared type lie, then the content decides', async () => {
    const id = await newProject();
    const accepted = await workspace.client.post(`/projects/${id}/cover`, form(await makeImage('png'), 'notes.txt', 'text/plain'));
    expect(accepted.status).toBe(200);
    const refused = await workspace.client.post<Problem>(`/projects/${id}/cover`, form(Buffer.from('just text, honestly'), 'cover.png', 'image/png'));
    expect(refused.status).toBe(415);
    expect(refused.body.type).toBe('/problems/unsupported-media-type');
    const gif = await workspace.client.post<Problem>(`/projects/${id}/cover`, form(await makeImage('gif'), 'cover.png', 'image/png'));
    expect(gif.status).toBe(415);
    expect(gif.body.detail).toContain('gif');
    // An empty file made the image library throw before it read anything (500).
    const empty = await workspace.client.post<Problem>(`/projects/${id}/cover`, form(Buffer.alloc(0), 'cover.jpg', 'image/jpeg'));
    expect(empty.status).toBe(415);
  });

  it('when a text field comes with the file, then it answers 400 naming it, as unknown JSON members do', async () => {
    const id = await newProject();
    const body = form(await makeImage('png'), 'a.png', 'image/png');
    body.append('caption', 'Autumn');
    const response = await workspace.client.post<Problem>(`/projects/${id}/cover`, body);
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((error) => error.path)).toContain('/caption');
  });

  it('when the declared length is over 10 MB, then it answers 413 before reading the body', async () => {
    const id = await newProject();
    const big = Buffer.alloc(11 * 1024 * 1024, 1);
    const response = await workspace.client.post<Problem>(`/projects/${id}/cover`, form(big));
    expect(response.status).toBe(413);
    expect(response.body.type).toBe('/problems/payload-too-large');
  });

  it('when an over-10 MB file arrives without a declared length, then it answers 413', async () => {
    const id = await newProject();
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const response = await postStreamed(id, [filePartHead('file', 'big.png'), ...Array.from({ length: 12 }, () => chunk), closing]);
    expect(response.status).toBe(413);
    // Whichever limit the bytes cross first as they arrive: the file's own, or the body's (file + 64 KB); one
    // network chunk can carry the body past both at once.
    expect(response.body.detail).toMatch(/at most (10485760|10551296) bytes|limit of 10485760 bytes/);
  });

  it('when 40 one-megabyte text fields arrive without a declared length, then it answers 413 naming the limit', async () => {
    const id = await newProject();
    const megabyte = 'x'.repeat(1024 * 1024);
    const fields = Array.from({ length: 40 }, (_, index) => textPart(`note${index}`, megabyte));
    const response = await postStreamed(id, [...fields, filePart('file', 'cover.png', await makeImage('png')), closing]);
    expect(response.status).toBe(413);
    expect(response.body.type).toBe('/problems/payload-too-large');
    expect(response.body.detail).toMatch(/text field .* 1024 bytes/);
    expect(await coverKeyOf(id)).toBeNull();
  });

  it('when there are more text fields or parts than allowed, then it answers 413 naming the limit', async () => {
    const id = await newProject();
    const fields = Array.from({ length: 30 }, (_, index) => textPart(`f${index}`, 'x'));
    const response = await postStreamed(id, [...fields, filePart('file', 'cover.png', await makeImage('png')), closing]);
    expect(response.status).toBe(413);
    expect(response.body.detail).toMatch(/at most \d+ (parts|text fields)/);

    const twoFiles = await postStreamed(id, [filePart('file', 'a.png', await makeImage('png')), filePart('other', 'b.png', await makeImage('png')), closing]);
    expect(twoFiles.status).toBe(413);
    expect(twoFiles.body.detail).toContain('one file');
  });

  it('when more than the total limit arrives without a declared length (bytes before the first part), then it answers 413', async () => {
    const id = await newProject();
    const junk = Buffer.alloc(1024 * 1024, 0x20);
    const response = await postStreamed(id, [...Array.from({ length: 11 }, () => junk), filePart('file', 'cover.png', await makeImage('png')), closing]);
    expect(response.status).toBe(413);
    expect(response.body.detail).toMatch(/at most \d+ bytes in all/);
  });

  it('when the multipart body is cut off before its closing boundary, then it answers 400 malformed-request', async () => {
    const id = await newProject();
    const whole = Buffer.concat([filePart('file', 'cover.png', await makeImage('png')), closing]);
    for (const cut of [whole.length - closing.length - 10, 60]) {
      const response = await workspace.client.post<Problem>(`/projects/${id}/cover`, whole.subarray(0, cut).toString('latin1'), {
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(response.status, `cut at ${cut}`).toBe(400);
      expect(response.body.type).toBe('/problems/malformed-request');
    }
    expect(await coverKeyOf(id)).toBeNull();
  });

  it.each([
    [30000, 30000, '900 megapixels'],
    [10000, 10000, '100 megapixels'],
  ])('when a %i×%i PNG of a few hundred KB is uploaded, then it answers 413 naming its size and the 50-megapixel limit', async (width, height, pixels) => {
    const id = await newProject();
    const png = makeBlankPng(width, height);
    expect(png.length).toBeLessThan(512 * 1024);
    const response = await workspace.client.post<Problem>(`/projects/${id}/cover`, form(png));
    expect(response.status).toBe(413);
    expect(response.body.type).toBe('/problems/payload-too-large');
    expect(response.body.detail).toBe(`The image is ${width}×${height} pixels (${pixels}); a cover is at most 50 megapixels.`);
    expect(await coverKeyOf(id)).toBeNull();
  });

  it('when the file is missing or in another field, then it answers 400', async () => {
    const id = await newProject();
    const wrongField = await workspace.client.post<Problem>(`/projects/${id}/cover`, form(await makeImage('png'), 'a.png', 'image/png', 'image'));
    expect(wrongField.status).toBe(400);
    const textField = new FormData();
    textField.append('file', 'not a file');
    const notAFile = await workspace.client.post<Problem>(`/projects/${id}/cover`, textField);
    expect(notAFile.status).toBe(400);
    expect(notAFile.body.errors?.[0]?.path).toBe('/file');
  });

  it('when the project belongs to another workspace, then it answers 404 and stores nothing for it', async () => {
    const other = await createTestWorkspace(app, 'growth');
    const theirs = await newProject(other.client);
    const response = await workspace.client.post<Problem>(`/projects/${theirs}/cover`, form(await makeImage('png')));
    expect(response.status).toBe(404);
    expect(await coverKeyOf(theirs)).toBeNull();
  });

  it('when a cover is replaced, then the old image leaves storage and the new one stays', async () => {
    const id = await newProject();
    await workspace.client.post(`/projects/${id}/cover`, form(await makeImage('png', '#ff0000')));
    const first = (await coverKeyOf(id))!;
    await workspace.client.post(`/projects/${id}/cover`, form(await makeImage('png', '#00ff00')));
    const second = (await coverKeyOf(id))!;
    expect(second).not.toBe(first);
    await expectObjectGone(first);
    expect(await app.storage.get(second)).not.toBeNull();
  });
});

describe('DELETE /projects/{id}/cover and DELETE /projects/{id}', () => {
  it('when the cover is deleted, then coverUrl is null and the image leaves storage', async () => {
    const id = await newProject();
    await workspace.client.post(`/projects/${id}/cover`, form(await makeImage('webp')));
    const key = (await coverKeyOf(id))!;
    expect((await workspace.client.delete(`/projects/${id}/cover`)).status).toBe(204);
    expect((await workspace.client.get<Schemas['Project']>(`/projects/${id}`)).body.coverUrl).toBeNull();
    await expectObjectGone(key);
    expect((await workspace.client.delete(`/projects/${id}/cover`)).status).toBe(204);
  });

  it('when the project is deleted, then its cover leaves storage through a workflow an operator can find', async () => {
    const id = await newProject();
    await workspace.client.post(`/projects/${id}/cover`, form(await makeImage('jpeg')));
    const key = (await coverKeyOf(id))!;
    expect((await workspace.client.delete(`/projects/${id}`)).status).toBe(204);
    await expectObjectGone(key);

    const temporal = app.api.services.temporal;
    const runs = await eventually(async () => {
      const found = [];
      for await (const run of temporal.workflow.list({ query: `workspaceId = '${workspace.id}' AND projectId = '${id}'` })) found.push(run);
      expect(found).toHaveLength(1);
      return found;
    });
    expect(runs[0]).toMatchObject({ type: 'cleanUpOrphanedObjects', workflowId: expect.stringMatching(/^storage-cleanup-/) });
    const description = await temporal.workflow.getHandle(runs[0]!.workflowId).describe();
    expect(await description.staticSummary()).toBe('Delete 1 stored object(s): project deleted');
  });
});

describe('signed file URLs', () => {
  it('when the signature is tampered with or expired, then the file answers 404', async () => {
    const id = await newProject();
    const uploaded = await workspace.client.post<Schemas['UploadProjectCoverResponse']>(`/projects/${id}/cover`, form(await makeImage('png')));
    const url = new URL(uploaded.body.coverUrl);

    const tampered = new URL(url);
    tampered.searchParams.set('signature', 'A'.repeat(43));
    expect((await fetch(tampered)).status).toBe(404);

    const extended = new URL(url);
    extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetch(extended)).status).toBe(404);

    const expiredKey = (await coverKeyOf(id))!;
    const expired = new URL(await app.storage.signedUrl(expiredKey, -10));
    expect((await fetch(expired)).status).toBe(404);
  });
});
