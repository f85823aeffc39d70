import type { BrandColors } from '../database/entities/brand-kit.ts';
import type { PostFormat } from '../artwork/post-formats.ts';

// Where post artwork comes from. `local` draws deterministic artwork without any network; `stability` calls
// Stability AI's REST API; `openai` calls OpenAI's images API (or Azure OpenAI, or another server speaking it).
// Activities pick one with createImageProvider(config) and never know which.

export type ImageRequest = {
  prompt: string;
  format: PostFormat;
  /** Same prompt, seed, format and colours give the same image (local); Stability uses it as its seed; OpenAI's API takes none. */
  seed: number;
  /** Brand colours to steer the artwork; may be empty. */
  colors: BrandColors;
};

type GeneratedImage = {
  /** PNG bytes at exactly the format's pixel size (see post-formats.ts). */
  png: Buffer;
  width: number;
  height: number;
  seed: number;
  /** Who made it, in words for the `respond` text: the provider's title with this image's details. */
  madeBy: string;
};

export type ImageProvider = {
  readonly name: 'local' | 'stability' | 'openai';
  /** Who makes the images, in words for the `respond` text, e.g. "Stability AI"; each image's `madeBy` starts with it. */
  readonly title: string;
  generate(request: ImageRequest): Promise<GeneratedImage>;
};
