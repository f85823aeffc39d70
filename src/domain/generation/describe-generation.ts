import { colorRoles, inRoleOrder } from '../../adapters/database/brand-roles.ts';
import type { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import { postFormats, type PostFormat } from '../../adapters/artwork/post-formats.ts';

/** The `respond` of a generation: what was made, by whom, from which prompt and with which brand kit. */
export function describeGeneration(input: { format: PostFormat; madeBy: string; prompt: string; promptWasNew: boolean; brandKit: BrandKit | null }): string {
  const { width, height } = postFormats[input.format];
  const prompt = input.prompt.length > 160 ? `${input.prompt.slice(0, 157)}...` : input.prompt;
  const source = input.promptWasNew ? `from the new prompt "${prompt}"` : `from the post's prompt "${prompt}"`;
  const colours = inRoleOrder(input.brandKit?.colors ?? {}, colorRoles).map(([, hex]) => hex);
  const brand = input.brandKit
    ? colours.length > 0
      ? ` in the colours of brand kit "${input.brandKit.name}" (${colours.join(', ')})`
      : ` with brand kit "${input.brandKit.name}" (it has no colours)`
    : '; no brand kit applied';
  return `Generated a ${width}×${height} (${input.format}) image with ${input.madeBy} ${source}${brand}.`;
}
