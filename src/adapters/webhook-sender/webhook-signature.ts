import { createHmac, timingSafeEqual } from 'node:crypto';

// Two signatures over one delivery. `X-Service-Signature` is the product spec's: an HMAC of the raw body only.
// `webhook-signature` is Standard Webhooks' (https://www.standardwebhooks.com): it also covers the delivery id and
// the timestamp, so a receiver can reject a captured delivery replayed later or under another id. The same id and
// timestamp travel under our own header names too, for receivers that only read the spec's headers.

export type WebhookSigningInput = {
  /** The webhook's secret; null for a webhook created without one, whose deliveries are not signed. */
  secret: string | null;
  deliveryId: string;
  /** Unix seconds. */
  timestamp: number;
  /** The exact JSON text that is sent. */
  body: string;
};

export type StandardSignatureInput = {
  /** The `webhook-id` header. */
  id: string;
  /** The `webhook-timestamp` header (unix seconds). */
  timestamp: string | number;
  /** The raw request body, before any JSON parsing. */
  body: string;
  /** The `webhook-signature` header. */
  signatureHeader: string | undefined;
  /** How far the timestamp may be from now, either way; 5 minutes unless given. */
  toleranceSeconds?: number;
  /** The current time in milliseconds (as Date.now()). */
  now?: number;
};

const defaultToleranceSeconds = 5 * 60;

function hmac(secret: string, content: string): Buffer {
  return createHmac('sha256', secret).update(content, 'utf8').digest();
}

function serviceSignature(secret: string, body: string): string {
  return `sha256=${hmac(secret, body).toString('hex')}`;
}

function standardSignature(secret: string, id: string, timestamp: string, body: string): string {
  return `v1,${hmac(secret, `${id}.${timestamp}.${body}`).toString('base64')}`;
}

function equalInConstantTime(expected: string, given: string): boolean {
  const expectedBytes = Buffer.from(expected);
  const givenBytes = Buffer.from(given);
  return expectedBytes.length === givenBytes.length && timingSafeEqual(expectedBytes, givenBytes);
}

/** The headers that identify, timestamp and (with a secret) sign one delivery attempt. */
export function signWebhook(input: WebhookSigningInput): Record<string, string> {
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) {
    throw new Error(`webhook timestamp must be whole unix seconds, got ${input.timestamp}`);
  }
  // An empty key would produce signatures anyone can compute.
  if (input.secret === '') throw new Error('webhook secret must not be empty');
  const timestamp = String(input.timestamp);
  const headers: Record<string, string> = {
    'X-Service-Delivery-Id': input.deliveryId,
    'X-Service-Timestamp': timestamp,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': timestamp,
  };
  if (input.secret === null) return headers;
  headers['X-Service-Signature'] = serviceSignature(input.secret, input.body);
  headers['webhook-signature'] = standardSignature(input.secret, input.deliveryId, timestamp, input.body);
  return headers;
}

/** Checks `X-Service-Signature: sha256=<hex>` against the raw body. */
export function verifyServiceSignature(secret: string, body: string, header: string | undefined): boolean {
  if (header === undefined) return false;
  return equalInConstantTime(serviceSignature(secret, body), header);
}

/**
 * Checks a Standard Webhooks `webhook-signature` header (space-separated `v1,<base64>` entries, any of which may
 * match, so a sender can rotate secrets) and that the timestamp is within the tolerance of now.
 */
export function verifyStandardSignature(secret: string, input: StandardSignatureInput): boolean {
  const timestamp = String(input.timestamp);
  if (!/^\d{1,15}$/.test(timestamp) || input.signatureHeader === undefined) return false;
  const nowSeconds = (input.now ?? Date.now()) / 1000;
  if (Math.abs(nowSeconds - Number(timestamp)) > (input.toleranceSeconds ?? defaultToleranceSeconds)) return false;

  const expected = standardSignature(secret, input.id, timestamp, input.body);
  return input.signatureHeader.split(' ').some((entry) => equalInConstantTime(expected, entry));
}
