import type { TextUnit } from './platform-declaration.ts';
import { graphemeCount } from './shorten-text.ts';
import { weightedLength } from './weighted-text.ts';

/** The text's length in a platform's unit, links counted as they are written. */
export function countText(text: string, unit: TextUnit): number {
  if (unit === 'graphemes') return graphemeCount(text);
  if (unit === 'weighted') return weightedLength(text);
  return Array.from(text).length;
}
