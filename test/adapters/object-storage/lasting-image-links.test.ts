import { describe, expect, it } from 'vitest';
import { createLastingImageLinks } from '../../../src/adapters/object-storage/lasting-image-links.ts';
import { objectKeys } from '../../../src/adapters/object-storage/object-keys.ts';
import { newId } from '../../../src/adapters/database/new-id.ts';

const links = createLastingImageLinks('s'.repeat(32), () => 'https://content.example.com');
const tokenOf = (link: string) => link.slice('https://content.example.com/images/'.length);

describe('lasting image links', () => {
  it.each([
    ['a post artwork', objectKeys.postArtwork(newId(), newId(), newId())],
    ['a post render', objectKeys.postRender(newId(), newId(), newId())],
    ['a project cover', objectKeys.projectCover(newId(), newId(), 'jpg')],
  ])('when %s is linked, then its token names its key and ends with its extension', (_case, key) => {
    const link = links.linkTo(key);
    expect(link.endsWith(key.slice(key.lastIndexOf('.')))).toBe(true);
    expect(links.keyOf(tokenOf(link))).toBe(key);
  });

  it('when a token was signed with another secret or has another extension, then it names no key', () => {
    const key = objectKeys.postArtwork(newId(), newId(), newId());
    const other = createLastingImageLinks('t'.repeat(32), () => 'https://content.example.com');
    expect(links.keyOf(tokenOf(other.linkTo(key)))).toBeUndefined();
    expect(links.keyOf(tokenOf(links.linkTo(key)).replace(/\.png$/, '.jpg'))).toBeUndefined();
    expect(links.keyOf('')).toBeUndefined();
  });
});
