import { describe, expect, it } from 'vitest';
import { escapeLittleText, linkedInCommentaryOf } from '../../../../src/adapters/social/linkedin/linkedin-commentary.ts';

describe('LinkedIn commentary: little text', () => {
  it.each([
    ['plain text', 'Spring is here.', 'Spring is here.'],
    ['every reserved character', '\\ | { } @ [ ] ( ) < > # * _ ~', '\\\\ \\| \\{ \\} \\@ \\[ \\] \\( \\) \\< \\> \\# \\* \\_ \\~'],
    ['a mention lookalike', '@[Eddy](urn:li:person:1234)', '\\@\\[Eddy\\]\\(urn:li:person:1234\\)'],
    ['hashtags at the start of words', '#spring and #Été2026!', '#spring and #Été2026!'],
    ['a # inside a word', 'C# and F#', 'C\\# and F\\#'],
    ['a hashtag followed by an underscore', '#spring_sale', '#spring\\_sale'],
    ['links', 'see https://example.com/a_b?(x)=1 now', 'see https://example.com/a_b?(x)=1 now'],
  ])('when the text has %s, then only what LinkedIn would read as markup is escaped', (_case, text, escaped) => {
    expect(escapeLittleText(text)).toBe(escaped);
  });

  it('when the text fits, then it is sent whole and counted in UTF-16 units as LinkedIn counts', () => {
    const text = `${'😀'.repeat(1_000)}${'a'.repeat(1_000)}`;
    expect(linkedInCommentaryOf(text)).toEqual({ text, commentary: text, count: 3_000 });
  });

  it('when emoji take it over 3,000 UTF-16 units, then it is cut to fit, ending in an ellipsis', () => {
    const { text, commentary, count } = linkedInCommentaryOf('😀'.repeat(2_000));
    expect(count).toBeLessThanOrEqual(3_000);
    expect(count).toBeGreaterThan(2_990);
    expect(text).toBe(commentary);
    expect(text.endsWith('😀…')).toBe(true);
  });

  it('when escaping takes it over 3,000 characters, then the text is cut so that the escaped commentary fits', () => {
    const { text, commentary, count } = linkedInCommentaryOf('_'.repeat(2_000));
    expect(commentary).toBe(escapeLittleText(text));
    expect(count).toBe(commentary.length);
    expect(count).toBeLessThanOrEqual(3_000);
    expect(text).toBe(`${'_'.repeat(1_499)}…`);
  });
});
