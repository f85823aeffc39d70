import express from 'express';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestLogging } from '../../src/api/middleware/request-logging.ts';
import { problemResponse } from '../../src/api/middleware/problem-response.ts';
import { AppError } from '../../src/common/errors/app-error.ts';
import { eventually } from '../support/eventually.ts';

// The request log on a real Express server and a real pino logger: one line per request with what an operator
// needs, at a level that says whether it is a bug, and a request logger for the errors met on the way.

type Line = Record<string, unknown> & { level: number; msg: string };

let lines: Line[] = [];
let server: Server;
let base: string;
let slowArrived = false;

beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Line) });
  const app = express();
  app.use(requestLogging(logger));
  app.get('/ok', (_req, res) => {
    res.locals.caller = { workspaceId: 'workspace-1' };
    res.json({ ok: true });
  });
  app.get('/files/:name', (_req, res) => res.end('file'));
  app.get('/oauth/:platform/callback', (_req, res) => res.end('callback'));
  app.get('/oauth/consent/:state', (_req, res) => res.end('consent'));
  // A mounted router sees the URL without its mount path; the line must not.
  const mounted = express.Router();
  mounted.get('/things', (_req, res) => res.json([]));
  app.use('/api', mounted);
  app.get('/bug', () => {
    throw new Error('the database said no');
  });
  app.get('/down', () => {
    throw new AppError('service-unavailable', 'Temporal did not answer.');
  });
  // Never answers.
  app.get('/slow', () => {
    slowArrived = true;
  });
  app.use(problemResponse);
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolveClose) => server.close(() => resolveClose())));
beforeEach(() => {
  lines = [];
});

/** Waits for `find` to find something (a log line is written once the answer is done, after the client has it). */
const found = <T>(find: () => T | undefined) =>
  eventually(() => {
    const value = find();
    return value === undefined || value === false ? Promise.reject(new Error('not yet')) : Promise.resolve(value);
  });
const requestLine = (url: string) => found(() => lines.find((line) => (line.req as { url?: string } | undefined)?.url === url && line.res !== undefined));

describe('the request log', () => {
  it('when a request succeeds, then one info line names it, its status, time and workspace, with the id it was answered with', async () => {
    const response = await fetch(`${base}/ok`, { headers: { 'x-request-id': 'client-7' } });
    expect(response.headers.get('x-request-id')).toBe('client-7');
    const line = await requestLine('/ok');
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { id: 'client-7', method: 'GET', url: '/ok' },
      res: { statusCode: 200 },
      workspaceId: 'workspace-1',
    });
    expect(line.responseTime).toEqual(expect.any(Number));
    expect(lines.filter((each) => each.res !== undefined)).toHaveLength(1);
  });

  it('when a URL carries a signature, then the line keeps it out', async () => {
    await fetch(`${base}/files/a.png?expires=1&signature=secret-capability`);
    expect(await requestLine('/files/a.png?expires=1&signature=REDACTED')).toMatchObject({ res: { statusCode: 200 } });
  });

  it("when an OAuth callback or consent page is asked for, then the line keeps the callback's code and state and the page's state out", async () => {
    await fetch(`${base}/oauth/x/callback?state=the-state-secret&code=the-code-secret`);
    await fetch(`${base}/oauth/consent/the-consent-state?x=1`);
    expect(await requestLine('/oauth/x/callback?state=REDACTED&code=REDACTED')).toMatchObject({ res: { statusCode: 200 } });
    expect(await requestLine('/oauth/consent/REDACTED?x=1')).toMatchObject({ res: { statusCode: 200 } });
    expect(JSON.stringify(lines)).not.toMatch(/the-state-secret|the-code-secret|the-consent-state/);
  });

  it('when a router mounted on a path answers, then the line has the whole URL', async () => {
    await fetch(`${base}/api/things?page=2`);
    expect(await requestLine('/api/things?page=2')).toMatchObject({ msg: 'request completed', res: { statusCode: 200 } });
  });

  it('when a handler fails unexpectedly, then the error is logged with its request and the request line is an error', async () => {
    const response = await fetch(`${base}/bug`);
    expect(response.status).toBe(500);
    const line = await requestLine('/bug');
    expect(line).toMatchObject({ level: 50, msg: 'request failed with status 500', res: { statusCode: 500 } });
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await found(() => lines.find((each) => each.msg === 'request failed unexpectedly'))).toMatchObject({
      level: 50,
      req: { id: requestId, url: '/bug' },
      err: { message: 'the database said no' },
    });
  });

  it('when a dependency is down, then the request line is a warning, not an error', async () => {
    expect((await fetch(`${base}/down`)).status).toBe(503);
    expect(await requestLine('/down')).toMatchObject({ level: 40, msg: 'request failed with status 503' });
  });

  it('when the client leaves before the answer, then the line says aborted', async () => {
    const controller = new AbortController();
    const request = fetch(`${base}/slow`, { signal: controller.signal }).catch((error: unknown) => error);
    await found(() => slowArrived);
    controller.abort();
    await request;
    expect(await requestLine('/slow')).toMatchObject({ level: 30, res: { statusCode: 'aborted' } });
  });
});
