// The post formats of the API and the pixel size of each, in one place.
export const postFormats = {
  '1:1': { width: 1080, height: 1080 },
  '9:16': { width: 1080, height: 1920 },
  '16:9': { width: 1920, height: 1080 },
} as const;

export type PostFormat = keyof typeof postFormats;

/** Every format, e.g. for a column's enum or a test of each. */
export const allPostFormats = Object.keys(postFormats) as PostFormat[];

export const defaultPostFormat: PostFormat = '1:1';
