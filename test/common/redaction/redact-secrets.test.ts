import { describe, expect, it } from 'vitest';
import { xErrorText } from '../../../src/adapters/social/x/x-answers.ts';
import { pinterestErrorText } from '../../../src/adapters/social/pinterest/pinterest-api.ts';
import { redactedWords } from '../../../src/common/redaction/redact-secrets.ts';

// A platform's error words are cut to a few hundred characters before they are stored. A secret the platform echoed
// across the cut must be blanked whole first: cut first, its head no longer matches and stays in the clear.

const token = 'tok-0123456789abcdefghijklmnopqrstuvwxyz';
const answerWith = (body: Record<string, unknown>) => ({ status: 400, headers: {}, body });

describe('redaction before truncation', () => {
  it('when a secret straddles the cut, then no part of it is left', () => {
    const text = `${'a'.repeat(95)} ${token} and more`;
    const words = redactedWords(text, [token], 100);
    expect(words).toBe(`${'a'.repeat(95)} [red`);
    expect(words).not.toContain(token.slice(0, 4));
  });

  it("when X's error echoes the token across its 500-character cut, then the reason keeps no part of it", () => {
    const text = xErrorText(answerWith({ title: 'Invalid Request', detail: `${'x'.repeat(480)} ${token}` }), [token]);
    expect(text.length).toBeLessThanOrEqual(500);
    expect(text).not.toContain(token.slice(0, 4));
  });

  it("when Pinterest's error quotes a URL with an access token, then the token is redacted", () => {
    const text = pinterestErrorText(answerWith({ code: 2, message: 'See https://api.pinterest.com/v5/x?access_token=pina_abc' }), []);
    expect(text).toBe('code 2: See https://api.pinterest.com/v5/x?access_token=REDACTED');
  });
});
