import express from 'express';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

// The floor of GET /posts: bare Express and node-postgres sending exactly the statements, with exactly the
// parameters, that the service sent to PostgreSQL for one real request (captured at the pg client, underneath the
// ORM), and answering with the rows as JSON. What the service takes on top is routing, validation, authentication
// in code, the ORM and presenting.

export type Statement = { text: string; values: unknown[] };

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

/** Every statement any pg client in this process sends while `action` runs. */
export async function captureStatements(action: () => Promise<unknown>): Promise<Statement[]> {
  const prototype = pg.Client.prototype as unknown as { query: Query };
  const original = prototype.query;
  const statements: Statement[] = [];
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [config, values] = args as [string | { text: string; values?: unknown[] }, unknown];
    statements.push(
      typeof config === 'string' ? { text: config, values: Array.isArray(values) ? values : [] } : { text: config.text, values: config.values ?? [] },
    );
    return original.apply(this, args);
  };
  try {
    await action();
  } finally {
    prototype.query = original;
  }
  return statements;
}

export type BareServer = { url: string; stop(): Promise<void> };

/** Serves GET /posts by replaying `statements` on one pooled connection. */
export async function startBarePostsServer(databaseUrl: string, statements: Statement[]): Promise<BareServer> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
  const app = express();
  app.get('/posts', async (_req, res) => {
    const client = await pool.connect();
    try {
      const results: unknown[] = [];
      for (const statement of statements) results.push((await client.query(statement.text, statement.values)).rows);
      res.json(results);
    } finally {
      client.release();
    }
  });
  return listening(app.listen(0, '127.0.0.1'), () => pool.end());
}

/**
 * Node's HTTP server answering `body` as it is, with nothing behind it: what a request costs the caller and bare HTTP,
 * the share of a request's CPU that is neither the service's nor its floor's work.
 */
export async function startFixedAnswerServer(body: string): Promise<BareServer> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body));
  return listening(server.listen(0, '127.0.0.1'));
}

/** The server once it listens, with a stop that closes it (open connections too), then runs `after`. */
async function listening(server: Server, after: () => Promise<void> = () => Promise.resolve()): Promise<BareServer> {
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
      await after();
    },
  };
}
