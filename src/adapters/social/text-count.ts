import type { PlatformDeclaration } from './platform-declaration.ts';
import { graphemeCount } from './shorten-text.ts';
import { weightedLength } from './weighted-text.ts';

/** The text's length as the platform counts it: in its unit, links at their fixed length where it has one. */
export function countText(text: string, { unit, linkLength }: PlatformDeclaration['text']): number {
  if (unit === 'graphemes') return graphemeCount(text, linkLength);
  if (unit === 'weighted') return weightedLength(text);
  return Array.from(text).length;
}
