import WebSocket from 'ws';
import type { NostrEvent } from 'nostr-tools/core';
import { DisallowedPortError, guardedRequestOptions, NonPublicAddressError } from '../../net/public-address-policy.ts';
import { causesOf } from '../../../common/errors/caught.ts';

// One WebSocket to one Nostr relay (NIP-01), for one exchange: an EVENT and its `OK` (NIP-20), or just the
// handshake. The relay is a customer-given address, so the connection goes through the same guard as
// every such request: public addresses only (the name resolved when connecting, an IP literal checked first) unless
// private networks are allowed. `ws` rather than Node's global WebSocket, which takes no DNS lookup of ours.

export type RelayOptions = { allowPrivateNetworks: boolean; timeoutMs: number };

/**
 * How an exchange with a relay ended: it answered; it could not be reached (nothing was sent, so it cannot have acted);
 * or what we sent went out and no answer came in time (it may have acted on it).
 */
export type RelayOutcome<T> =
  { kind: 'answered'; answer: T } | { kind: 'unreachable'; reason: string; forGood: boolean } | { kind: 'unanswered'; reason: string };

/** A relay's `OK` to one event: NIP-20 counts a `duplicate:` as the relay having it, whatever the flag says. */
export type OkAnswer = { accepted: boolean; message: string };

// A relay's messages to us are short (an `OK`, a `NOTICE`): anything near this is not a relay speaking NIP-01.
const maxMessageBytes = 1024 * 1024;
// A relay's message is shown in the target's attempts: its first words are what a person needs.
const messageMaxChars = 300;

/** Sends `event` and waits for the relay's `OK` to it. */
export function sendEvent(url: string, event: NostrEvent, options: RelayOptions): Promise<RelayOutcome<OkAnswer>> {
  return exchange(url, options, ['EVENT', event], (message) => {
    // Answered by the event's id; nostr-relay answers a refusal with an empty id, which on this connection of one event
    // can only be this event's.
    if (message[0] !== 'OK' || (message[1] !== event.id && message[1] !== '')) return undefined;
    const text = typeof message[3] === 'string' ? cleanText(message[3]) : '';
    return { accepted: message[2] === true || text.startsWith('duplicate:'), message: text };
  });
}

/** Whether the relay accepts a WebSocket connection (nothing is sent). */
export function reachRelay(url: string, options: RelayOptions): Promise<RelayOutcome<true>> {
  return exchange(url, options, undefined, () => true);
}

function exchange<T>(
  url: string,
  options: RelayOptions,
  request: unknown[] | undefined,
  answerOf: (message: unknown[]) => T | undefined,
): Promise<RelayOutcome<T>> {
  return new Promise((resolveOutcome) => {
    let socket: WebSocket | undefined;
    let sent = false;
    let settled = false;
    const finish = (outcome: RelayOutcome<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.terminate();
      resolveOutcome(outcome);
    };
    // One deadline for the whole exchange: connecting, then the answer.
    const timer = setTimeout(
      () =>
        finish(
          sent
            ? { kind: 'unanswered', reason: `no answer within ${options.timeoutMs / 1000} s` }
            : { kind: 'unreachable', reason: `no connection within ${options.timeoutMs / 1000} s`, forGood: false },
        ),
      options.timeoutMs,
    );
    try {
      const { lookup } = guardedRequestOptions(new URL(url), options.allowPrivateNetworks);
      socket = new WebSocket(url, { ...(lookup ? { lookup } : {}), maxPayload: maxMessageBytes, followRedirects: false, perMessageDeflate: false });
    } catch (error) {
      finish(unreachable(error));
      return;
    }
    socket.on('unexpected-response', (_request, response) => {
      // A page that is not a relay is so for good; a proxy's 408, 429 or 5xx in front of one is not.
      const status = response.statusCode ?? 0;
      const forGood = status < 500 && status !== 408 && status !== 429;
      finish({ kind: 'unreachable', reason: `answered ${status} instead of a WebSocket`, forGood });
    });
    socket.on('open', () => {
      if (!request) return finish({ kind: 'answered', answer: answerOf([]) as T });
      socket?.send(JSON.stringify(request), (error) => {
        // Written out whole, as far as this side can tell: from now on the relay may act on it.
        if (!error) sent = true;
      });
    });
    socket.on('message', (data) => {
      const message = parseMessage(textOf(data));
      const answer = message ? answerOf(message) : undefined;
      if (answer !== undefined) finish({ kind: 'answered', answer });
    });
    socket.on('error', (error) => finish(sent ? { kind: 'unanswered', reason: 'the connection failed' } : unreachable(error)));
    socket.on('close', () => finish(sent ? { kind: 'unanswered', reason: 'the relay closed the connection' } : unreachable(undefined)));
  });
}

function unreachable(error: unknown): RelayOutcome<never> {
  for (const current of causesOf(error)) {
    // One reason for both, as public-fetch.ts words it: told apart they map which names exist inside our network.
    if (current instanceof NonPublicAddressError || (current as { code?: unknown }).code === 'ENOTFOUND') {
      return { kind: 'unreachable', reason: 'its name does not resolve to a public address', forGood: true };
    }
    if (current instanceof DisallowedPortError) return { kind: 'unreachable', reason: `${current.message}`, forGood: true };
  }
  return { kind: 'unreachable', reason: 'could not connect', forGood: false };
}

function textOf(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString();
  return Buffer.isBuffer(data) ? data.toString() : Buffer.from(new Uint8Array(data)).toString();
}

function parseMessage(text: string): unknown[] | undefined {
  try {
    const message: unknown = JSON.parse(text);
    return Array.isArray(message) ? message : undefined;
  } catch {
    return undefined;
  }
}

// Printable text only (no control characters or lone surrogates, which PostgreSQL's jsonb refuses), cut short.
function cleanText(text: string): string {
  const printable = text
    .toWellFormed()
    .replace(/\p{Cc}/gu, ' ')
    .trim();
  return printable.length > messageMaxChars ? `${printable.slice(0, messageMaxChars - 1)}…` : printable;
}
