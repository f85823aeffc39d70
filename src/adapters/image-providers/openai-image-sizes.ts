import { postFormats, type PostFormat } from '../artwork/post-formats.ts';

// The sizes `POST /images/generations` takes, per model, as OpenAI's reference lists them
// (https://platform.openai.com/docs/api-reference/images/create): a size the model does not list is refused with 400.
// Other servers (LocalAI, Together, vLLM-Omni...) take sizes of their own, which the operator lists in
// OPENAI_IMAGES_SIZES.

/** `WIDTHxHEIGHT`, as the API spells a size. */
export type ImageSize = `${number}x${number}`;

/** What a model family accepts besides the size: only these are sent, since OpenAI refuses what a model does not take. */
export type ModelFamily = 'dall-e' | 'gpt-image' | 'other';

const modelSizes: Array<{ model: RegExp; family: ModelFamily; sizes: ImageSize[] }> = [
  { model: /^dall-e-2$/, family: 'dall-e', sizes: ['256x256', '512x512', '1024x1024'] },
  { model: /^dall-e-3$/, family: 'dall-e', sizes: ['1024x1024', '1792x1024', '1024x1792'] },
  // gpt-image-1, -1-mini, -1.5 and -2 all take the three standard sizes (gpt-image-2 takes more, on request).
  { model: /^gpt-image-/, family: 'gpt-image', sizes: ['1024x1024', '1536x1024', '1024x1536'] },
];

/** Every server takes a square 1024 (it is OpenAI's own default): the default for a model we know nothing of. */
export const defaultSizes: ImageSize[] = ['1024x1024'];

/** The model's family and the sizes OpenAI documents for it; none for a model of another server. */
export function modelOf(model: string): { family: ModelFamily; sizes: ImageSize[] | undefined } {
  const known = modelSizes.find((entry) => entry.model.test(model));
  return known ? { family: known.family, sizes: known.sizes } : { family: 'other', sizes: undefined };
}

function dimensionsOf(size: ImageSize): { width: number; height: number } {
  const [width = 0, height = 0] = size.split('x').map(Number);
  return { width, height };
}

/**
 * The size to ask for a format: the closest aspect ratio (compared as logarithms, so 2:1 and 1:2 are as far from
 * 1:1), then the largest, since the answer is cropped and scaled to the format's pixels afterwards.
 */
export function nearestSize(sizes: readonly ImageSize[], format: PostFormat): ImageSize {
  const { width, height } = postFormats[format];
  const wanted = Math.log(width / height);
  const scored = sizes.map((size) => {
    const dimensions = dimensionsOf(size);
    return { size, distance: Math.abs(Math.log(dimensions.width / dimensions.height) - wanted), area: dimensions.width * dimensions.height };
  });
  scored.sort((a, b) => a.distance - b.distance || b.area - a.area);
  const [best] = scored;
  if (!best) throw new Error('no image sizes are configured');
  return best.size;
}
