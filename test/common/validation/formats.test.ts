import { describe, expect, it } from 'vitest';
import { isDateTime, isUuid, isWebUrl } from '../../../src/common/validation/formats.ts';

describe('isDateTime', () => {
  it.each([
    '2026-11-23T09:00:00Z',
    '2028-02-29T00:00:00Z',
    '2030-01-01T00:00:00.123456+05:30',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '2026-11-23t09:00:00z',
  ])('when it is %s, then it is a date-time', (value) => expect(isDateTime(value)).toBe(true));

  it.each([
    '2030-13-01T00:00:00Z',
    '2030-01-01T29:00:00Z',
    '0000-01-01T00:00:00Z',
    '2030-02-29T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '2030-04-31T00:00:00Z',
    '2030-01-01T23:59:60Z',
    '2030-01-01T00:00:00+24:00',
    '0001-01-01T00:30:00+01:00',
    '9999-12-31T23:00:00-02:00',
    '2030-01-01 00:00:00Z',
    '2030-01-01T00:00:00',
    '+002030-01-01T00:00:00Z',
  ])('when it is %s, then it is not', (value) => expect(isDateTime(value)).toBe(false));
});

describe('isWebUrl', () => {
  it.each(['https://example.com', 'https://example.com/hook?a=b#c', 'http://localhost:3000/x', 'https://[::1]:8443/'])(
    'when it is %s, then it is a URL',
    (value) => expect(isWebUrl(value)).toBe(true),
  );

  it.each([
    'https://',
    'https://\u0084',
    'https://a.com/x\u0000',
    'https://a.com/\ud800',
    'https://exa mple.com',
    ' https://example.com',
    'ftp://example.com',
    'mailto:a@b.c',
    'https://%zz',
    '/relative',
  ])('when it is %j, then it is not', (value) => expect(isWebUrl(value)).toBe(false));
});

describe('isUuid', () => {
  it('when a UUID is canonical, then it is one; with a URN prefix, braces or dashes only, it is not', () => {
    expect(isUuid('0b6d6f2e-8f43-4a52-9f4c-2f1b0d6a9e11')).toBe(true);
    expect(isUuid('0B6D6F2E-8F43-4A52-9F4C-2F1B0D6A9E11')).toBe(true);
    expect(isUuid('urn:uuid:0b6d6f2e-8f43-4a52-9f4c-2f1b0d6a9e11')).toBe(false);
    expect(isUuid('{0b6d6f2e-8f43-4a52-9f4c-2f1b0d6a9e11}')).toBe(false);
    expect(isUuid('-'.repeat(36))).toBe(false);
  });
});
