import { AppError } from '../../common/errors/app-error.ts';

// One emoji, including sequences that render as one (flags, keycaps, skin tones, ZWJ families).
const singleEmoji = /^\p{RGI_Emoji}$/v;

export function validateProjectIcon(icon: string | null | undefined): void {
  if (icon === null || icon === undefined || singleEmoji.test(icon)) return;
  throw new AppError('validation-failed', 'icon must be a single emoji.', {
    errors: [{ location: 'body', path: '/icon', message: 'must be a single emoji' }],
  });
}
