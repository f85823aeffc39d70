import type { Connection } from '@temporalio/client';
// A CommonJS module: Node's ESM loader sees only its default export.
import proto from '@temporalio/proto';
import { messageOf } from '../../common/errors/caught.ts';
import { searchAttributes } from './search-attributes.ts';

const keyword = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

/**
 * Makes sure the namespace knows our custom search attributes, at every worker start-up: without them every workflow
 * start that sets one fails. Missing ones are created (at once by N workers: the server accepts an attribute that
 * already exists with its type), which works where the caller may administer the namespace (the dev server, a
 * self-hosted cluster); where it may not (Temporal Cloud, a locked-down cluster) it throws the command an operator
 * must run, which the worker logs before it starts polling. Returns the names it created.
 */
export async function ensureSearchAttributes(connection: Pick<Connection, 'operatorService'>, namespace: string): Promise<string[]> {
  const known = await connection.operatorService.listSearchAttributes({ namespace }).catch((error: unknown) => {
    throw new Error(`Cannot read the search attributes of the Temporal namespace "${namespace}" (${messageOf(error)}); check TEMPORAL_NAMESPACE.`, {
      cause: error,
    });
  });
  const missing = Object.values(searchAttributes)
    .map(({ name }) => name)
    .filter((name) => !(name in (known.customAttributes ?? {})));
  if (missing.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((name) => [name, keyword])) });
  } catch (error) {
    const commands = missing.map((name) => `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type Keyword`).join('; ');
    throw new Error(
      `The Temporal namespace "${namespace}" lacks the search attributes ${missing.join(', ')} (Keyword) and this worker may not create them ` +
        `(${messageOf(error)}). Create them once, then start the worker again: ${commands} ` +
        '(on Temporal Cloud: tcld namespace search-attributes add).',
      { cause: error },
    );
  }
  return missing;
}
