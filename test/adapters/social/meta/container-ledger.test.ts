import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../../../src/adapters/social/social-connector.ts';
import { containerLedger, textHashOf } from '../../../../src/adapters/social/meta/container-ledger.ts';

function storeHolding(text: string | undefined): SessionStore & { text: string | undefined } {
  const store: SessionStore & { text: string | undefined } = {
    key: randomUUID(),
    text,
    read: () => Promise.resolve(store.text),
    async renew(renewal) {
      store.text = await renewal(store.text);
      return store.text;
    },
  };
  return store;
}

const dayMs = 24 * 60 * 60 * 1000;

describe('Threads container ledger', () => {
  it('when a container is noted, then it is found by its publication until forgotten', async () => {
    const ledger = containerLedger(storeHolding(undefined));
    const entry = { container: '17890000000000001', madeAt: Date.now(), textHash: textHashOf('Spring collection is here') };
    await ledger.note('key-1', entry);
    expect(await ledger.find('key-1')).toEqual(entry);
    expect(await ledger.find('key-2')).toBeUndefined();

    await ledger.forget('key-1');
    expect(await ledger.find('key-1')).toBeUndefined();
  });

  it('when entries are over a week old, then the next change drops them and keeps the rest', async () => {
    const old = { container: '1', madeAt: Date.now() - 8 * dayMs, textHash: 'a' };
    const recent = { container: '2', madeAt: Date.now() - 6 * dayMs, textHash: 'b' };
    const store = storeHolding(JSON.stringify({ containers: { old, recent } }));
    await containerLedger(store).note('new', { container: '3', madeAt: Date.now(), textHash: 'c' });
    expect(Object.keys((JSON.parse(store.text ?? '{}') as { containers: object }).containers)).toEqual(['recent', 'new']);
  });

  it('when the stored session is not a ledger, then it reads as empty and is replaced at the next change', async () => {
    const store = storeHolding('{"accessJwt":"x"');
    const ledger = containerLedger(store);
    expect(await ledger.find('key')).toBeUndefined();
    await ledger.note('key', { container: '1', madeAt: Date.now(), textHash: 'a' });
    expect(await ledger.find('key')).toMatchObject({ container: '1' });
  });

  it('when Threads gives the text back with other spacing or Unicode form, then its hash is the same', () => {
    expect(textHashOf('  Café au lait \n')).toBe(textHashOf('Cafe\u0301 au lait'));
  });
});
