import type { ImageRequest } from './image-provider.ts';

/**
 * The prompt a remote model is sent: the user's, with the brand colours as a palette hint (a model takes no colours
 * of its own). One line: multipart encoding turns a newline into CRLF, which the model would then see.
 */
export function promptWithPalette(request: ImageRequest): string {
  const palette = [request.colors.primary, request.colors.secondary, request.colors.accent, request.colors.neutral].filter((colour): colour is string =>
    Boolean(colour),
  );
  if (palette.length === 0) return request.prompt;
  const prompt = request.prompt.trimEnd();
  return `${/[.!?]$/.test(prompt) ? prompt : `${prompt}.`} Colour palette: ${palette.join(', ')}`;
}
