// The most pixels an image from outside may have before we decode it (covers, brand logos): 50 megapixels, about
// 200 MB once decoded as RGBA. A PNG of that size can be a few hundred KB on the wire, so only the header's
// dimensions tell; sharp's own default (about 268 megapixels) would let a much larger one through.
export const maxImagePixels = 50_000_000;

/** "30000×30000 pixels (900 megapixels)", when over the limit; null otherwise. */
export function pixelsOverLimit(width: number, height: number): string | null {
  if (width * height <= maxImagePixels) return null;
  const megapixels = Number(((width * height) / 1_000_000).toFixed(1));
  return `${width}×${height} pixels (${megapixels} megapixels)`;
}

export const pixelLimitText = `${maxImagePixels / 1_000_000} megapixels`;
