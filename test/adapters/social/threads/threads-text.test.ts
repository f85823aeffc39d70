import { describe, expect, it } from 'vitest';
import { threadsText, threadsTextCount } from '../../../../src/adapters/social/threads/threads-text.ts';

describe('Threads text: counted as Threads counts it', () => {
  it.each([
    ['ASCII', 'hello', 5],
    ['an accented letter (one character, two UTF-8 bytes)', 'café', 4],
    ['an emoji (its 4 UTF-8 bytes)', 'hi 🌸', 7],
    ['a flag (two regional indicators, 8 bytes)', '🇫🇷', 8],
    ['a family emoji (one grapheme, 18 bytes)', '👩‍👩‍👧', 18],
    ['a keycap (7 bytes)', '1️⃣', 7],
  ])('when the text holds %s, then it counts %i', (_case, text, count) => {
    expect(threadsTextCount(text)).toBe(count);
  });
});

describe('Threads text: cut to 500', () => {
  it('when the text fits, then it is kept as it is', () => {
    const text = `${'🌸'.repeat(100)}${'a'.repeat(100)}`;
    expect(threadsTextCount(text)).toBe(500);
    expect(threadsText(text)).toBe(text);
  });

  it('when plain text is too long, then it is cut to 499 characters and an ellipsis', () => {
    expect(threadsText('a'.repeat(600))).toBe(`${'a'.repeat(499)}…`);
  });

  it('when emoji make it too long, then it keeps as many whole emoji as fit, and the ellipsis', () => {
    const cut = threadsText('🌸'.repeat(200));
    expect(cut).toBe(`${'🌸'.repeat(124)}…`);
    expect(threadsTextCount(cut)).toBe(497);
  });
});
