import { createCipheriv, randomBytes } from 'node:crypto';
import type { SecretBox } from '../../src/adapters/crypto/secret-box.ts';
import { IdempotencyKey } from '../../src/adapters/database/entities/idempotency-key.ts';
import { OAuthAuthorization } from '../../src/adapters/database/entities/oauth-authorization.ts';
import { RequestEffect } from '../../src/adapters/database/entities/request-effect.ts';
import { SocialConnection } from '../../src/adapters/database/entities/social-connection.ts';
import { Webhook } from '../../src/adapters/database/entities/webhook.ts';
import type { Database } from '../../src/adapters/database/orm.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';

/** One sealed value as stored, and what it was sealed from. */
export type SealedValue = { table: string; column: string; id: string; stored: string; plaintext: string };

/**
 * A workspace with `count` webhooks, social connections (credentials and a session), OAuth authorizations under way
 * (their PKCE verifiers), stored idempotent answers and secrets issued by keyed requests (request effects), each sealed with the boxes given (as the service seals them), written straight to the database. Returns every
 * sealed value; an answer stored in plain text (before answers were sealed) is added too, and is not among them.
 */
export async function insertSealedRows(orm: Database, boxes: { secrets: SecretBox; answers: SecretBox }, count: number): Promise<SealedValue[]> {
  const { workspace } = await createWorkspace(orm, { name: 'Sealed rows', plan: 'growth' });
  const em = orm.em.fork();
  const rows = Array.from({ length: count }, (_, index) => {
    const secret = `whsec-${randomBytes(8).toString('hex')}`;
    const credentials = JSON.stringify({ accessToken: `token-${randomBytes(8).toString('hex')}` });
    const session = JSON.stringify({ refreshJwt: `jwt-${randomBytes(8).toString('hex')}` });
    const answer = JSON.stringify({ id: `answer-${index}`, secret });
    const verifier = randomBytes(32).toString('base64url');
    return {
      webhook: em.create(Webhook, {
        workspaceId: workspace.id,
        url: `https://hooks.example/${index}`,
        events: 'post.published',
        secretSealed: boxes.secrets.seal(secret),
        isActive: true,
      }),
      connection: em.create(SocialConnection, {
        workspaceId: workspace.id,
        platform: 'mastodon',
        serverUrl: 'https://social.example',
        accountName: `account-${index}`,
        accountId: `${index}`,
        credentialsSealed: boxes.secrets.seal(credentials),
        sessionSealed: boxes.secrets.seal(session),
        postLanguage: null,
      }),
      authorization: em.create(OAuthAuthorization, {
        workspaceId: workspace.id,
        platform: 'x',
        stateHash: randomBytes(32).toString('hex'),
        codeVerifierSealed: boxes.secrets.seal(verifier),
        redirectUri: 'https://app.example/connected',
        author: null,
        app: null,
        expiresAt: new Date(Date.now() + 600_000),
      }),
      answer: storedAnswer(em, workspace.id, `key-${index}`, boxes.answers.seal(answer)),
      effect: em.create(RequestEffect, {
        workspaceId: workspace.id,
        key: `effect-${index}`,
        resourceType: 'api-key',
        resourceId: `${index}`,
        secretSealed: boxes.answers.seal(`sk_issued-${index}`),
        expiresAt: new Date(Date.now() + 86_400_000),
      }),
      plaintexts: { secret, credentials, session, verifier, answer, issued: `sk_issued-${index}` },
    };
  });
  storedAnswer(em, workspace.id, 'plain-answer', '{"id":"stored before answers were sealed"}');
  await em.flush();
  return rows.flatMap(({ webhook, connection, authorization, answer, effect, plaintexts }) => [
    { table: 'webhooks', column: 'secret_sealed', id: webhook.id, stored: webhook.secretSealed!, plaintext: plaintexts.secret },
    { table: 'social_connections', column: 'credentials_sealed', id: connection.id, stored: connection.credentialsSealed, plaintext: plaintexts.credentials },
    { table: 'social_connections', column: 'session_sealed', id: connection.id, stored: connection.sessionSealed!, plaintext: plaintexts.session },
    {
      table: 'oauth_authorizations',
      column: 'code_verifier_sealed',
      id: authorization.id,
      stored: authorization.codeVerifierSealed,
      plaintext: plaintexts.verifier,
    },
    { table: 'idempotency_keys', column: 'response_body', id: answer.id, stored: answer.responseBody!, plaintext: plaintexts.answer },
    { table: 'request_effects', column: 'secret_sealed', id: effect.id, stored: effect.secretSealed!, plaintext: plaintexts.issued },
  ]);
}

/** Opens each value with the box its column is sealed with (the idempotent answers' for answers and issued secrets). */
export function openSealedValues(values: SealedValue[], boxes: { secrets: SecretBox; answers: SecretBox }): string[] {
  return values.map((value) => (['idempotency_keys', 'request_effects'].includes(value.table) ? boxes.answers : boxes.secrets).open(value.stored));
}

/** What `values` hold in the database now (each value's `stored`, read again). */
export async function readSealedValues(orm: Database, values: SealedValue[]): Promise<SealedValue[]> {
  const em = orm.em.fork();
  return Promise.all(
    values.map(async (value) => {
      const [row] = await em.execute<Array<{ stored: string }>>(`select ${value.column} as stored from ${value.table} where id = ?`, [value.id]);
      return { ...value, stored: row!.stored };
    }),
  );
}

/** The answer stored in plain text by insertSealedRows. */
export async function readPlainAnswer(orm: Database): Promise<string | null> {
  const [row] = await orm.em.fork().execute<Array<{ response_body: string | null }>>(`select response_body from idempotency_keys where key = 'plain-answer'`);
  return row?.response_body ?? null;
}

function storedAnswer(em: ReturnType<Database['em']['fork']>, workspaceId: string, key: string, body: string): IdempotencyKey {
  return em.create(IdempotencyKey, {
    workspaceId,
    key,
    requestMethod: 'POST',
    requestPath: '/api/v1/webhooks',
    requestHash: '0'.repeat(64),
    lockId: null,
    lockedUntil: null,
    responseStatus: 201,
    responseHeaders: { 'content-type': 'application/json; charset=utf-8' },
    responseBody: body,
    expiresAt: new Date(Date.now() + 86_400_000),
  });
}

/** A value as the service sealed it before keys had ids: AES-256-GCM with the configured key itself, `v1.` format. */
export function sealV1(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}
