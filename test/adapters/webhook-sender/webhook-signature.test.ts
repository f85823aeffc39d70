import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyServiceSignature, verifyStandardSignature } from '../../../src/adapters/webhook-sender/webhook-signature.ts';

const secret = 'spec-secret';
const deliveryId = 'msg_1';
const timestamp = 1_700_000_000;
const body = '{"event":"post.published"}';
const atSendTime = timestamp * 1000;

const signed = signWebhook({ secret, deliveryId, timestamp, body });

function standardInput(overrides: Partial<Parameters<typeof verifyStandardSignature>[1]> = {}) {
  return { id: deliveryId, timestamp: String(timestamp), body, signatureHeader: signed['webhook-signature'], now: atSendTime, ...overrides };
}

describe('signWebhook', () => {
  it('when the webhook has a secret, then X-Service-Signature is sha256=<hex HMAC of the raw body>, as the spec says', () => {
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    expect(signed['X-Service-Signature']).toBe(`sha256=${expected}`);
    // Computed with `printf '%s' "$body" | openssl dgst -sha256 -hmac spec-secret`.
    expect(signed['X-Service-Signature']).toBe('sha256=f7a508d0b13c06ca89bd88123c1319c90d0f3e24c7bf56f67948b62b0249dab1');
  });

  it('when the webhook has a secret, then webhook-signature is v1,<base64 HMAC of "id.timestamp.body">', () => {
    const expected = createHmac('sha256', secret).update(`${deliveryId}.${timestamp}.${body}`).digest('base64');
    expect(signed['webhook-signature']).toBe(`v1,${expected}`);
    // Computed with openssl dgst -sha256 -hmac spec-secret -binary | base64.
    expect(signed['webhook-signature']).toBe('v1,prM7cr0Yf9+5N0rnn00N5cMcSEcW5F70z/E8K8kznGQ=');
  });

  it('when the webhook has a secret, then the id and timestamp go out under both header sets', () => {
    expect(signed).toEqual({
      'X-Service-Delivery-Id': deliveryId,
      'X-Service-Timestamp': '1700000000',
      'webhook-id': deliveryId,
      'webhook-timestamp': '1700000000',
      'X-Service-Signature': expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
  });

  it('when the webhook has no secret, then the delivery carries its id and timestamp and no signature', () => {
    expect(signWebhook({ secret: null, deliveryId, timestamp, body })).toEqual({
      'X-Service-Delivery-Id': deliveryId,
      'X-Service-Timestamp': '1700000000',
      'webhook-id': deliveryId,
      'webhook-timestamp': '1700000000',
    });
  });

  it('when the body is not ASCII, then the HMAC is over its UTF-8 bytes', () => {
    const unicodeBody = '{"title":"Café ☕"}';
    const headers = signWebhook({ secret, deliveryId, timestamp, body: unicodeBody });
    const expected = createHmac('sha256', secret).update(Buffer.from(unicodeBody, 'utf8')).digest('hex');
    expect(headers['X-Service-Signature']).toBe(`sha256=${expected}`);
  });

  it('when the secret is empty or the timestamp is not whole seconds, then signing refuses', () => {
    expect(() => signWebhook({ secret: '', deliveryId, timestamp, body })).toThrow('webhook secret must not be empty');
    expect(() => signWebhook({ secret, deliveryId, timestamp: atSendTime + 0.5, body })).toThrow(/whole unix seconds/);
    expect(() => signWebhook({ secret, deliveryId, timestamp: -1, body })).toThrow(/whole unix seconds/);
  });
});

describe('verifyServiceSignature', () => {
  it('when the signature was made with the secret over this body, then it is valid', () => {
    expect(verifyServiceSignature(secret, body, signed['X-Service-Signature'])).toBe(true);
  });

  it.each([
    ['the body was changed', secret, '{"event":"post.failed"}', () => signed['X-Service-Signature']],
    ['the body gained a space', secret, `${body} `, () => signed['X-Service-Signature']],
    ['another secret is used', 'other-secret', body, () => signed['X-Service-Signature']],
    ['the header is missing', secret, body, () => undefined],
    ['the hex is uppercase', secret, body, () => signed['X-Service-Signature']?.toUpperCase().replace('SHA256', 'sha256')],
    ['the prefix is missing', secret, body, () => signed['X-Service-Signature']?.replace('sha256=', '')],
    ['the header is shorter', secret, body, () => signed['X-Service-Signature']?.slice(0, -2)],
    ['the header is empty', secret, body, () => ''],
  ])('when %s, then it is not valid', (_case, verifyingSecret, verifiedBody, header) => {
    expect(verifyServiceSignature(verifyingSecret, verifiedBody, header())).toBe(false);
  });
});

describe('verifyStandardSignature', () => {
  it('when id, timestamp and body are as signed and the time is within tolerance, then it is valid', () => {
    expect(verifyStandardSignature(secret, standardInput())).toBe(true);
    expect(verifyStandardSignature(secret, standardInput({ timestamp, now: atSendTime + 299_000 }))).toBe(true);
  });

  it.each([
    ['the body was changed', { body: '{"event":"post.failed"}' }],
    ['the timestamp was changed', { timestamp: String(timestamp + 1), now: atSendTime + 1000 }],
    ['the id was changed', { id: 'msg_2' }],
    ['the header is missing', { signatureHeader: undefined }],
    ['the header has no version', { signatureHeader: signed['webhook-signature']?.replace('v1,', '') }],
    ['the header has another version', { signatureHeader: signed['webhook-signature']?.replace('v1,', 'v1a,') }],
    ['the timestamp is not a number', { timestamp: 'yesterday' }],
    ['the delivery is older than the tolerance', { now: atSendTime + 301_000 }],
    ['the delivery is from the future beyond the tolerance', { now: atSendTime - 301_000 }],
    ['the delivery is older than a tighter tolerance', { now: atSendTime + 31_000, toleranceSeconds: 30 }],
  ])('when %s, then it is not valid', (_case, overrides) => {
    expect(verifyStandardSignature(secret, standardInput(overrides))).toBe(false);
  });

  it('when the secret differs, then it is not valid', () => {
    expect(verifyStandardSignature('other-secret', standardInput())).toBe(false);
  });

  it('when the header lists several signatures and one matches (secret rotation), then it is valid', () => {
    const rotated = signWebhook({ secret: 'new-secret', deliveryId, timestamp, body })['webhook-signature'];
    const header = `${rotated} ${signed['webhook-signature']}`;
    expect(verifyStandardSignature(secret, standardInput({ signatureHeader: header }))).toBe(true);
    expect(verifyStandardSignature('new-secret', standardInput({ signatureHeader: header }))).toBe(true);
    expect(verifyStandardSignature('third-secret', standardInput({ signatureHeader: header }))).toBe(false);
  });

  it('when no time is given, then the current time is used', () => {
    const now = Math.floor(Date.now() / 1000);
    const fresh = signWebhook({ secret, deliveryId, timestamp: now, body });
    expect(verifyStandardSignature(secret, { id: deliveryId, timestamp: now, body, signatureHeader: fresh['webhook-signature'] })).toBe(true);
    expect(verifyStandardSignature(secret, standardInput({ now: undefined }))).toBe(false);
  });
});
