import { AppError } from '../../common/errors/app-error.ts';
import type { Deps } from '../../domain/deps.ts';
import { holdIdempotencyKey } from '../../domain/idempotency/hold-idempotency-key.ts';
import { requestBodyHash, type KeyedRequest, type StoredAnswer } from '../../domain/idempotency/idempotent-request.ts';
import type { Logger } from '../../logger.ts';
import { appErrorOf, problemOf } from '../middleware/problem-response.ts';
import type { KeyedOperation, ToolAnswer } from './mcp-tool.ts';

/** A keyed answer: what the operation answered, or the stored answer of its first run. */
export type KeyedAnswer = ToolAnswer & { replayed: boolean };

/**
 * Runs a changing tool under its idempotency key exactly as the REST middleware runs a keyed POST
 * (src/api/middleware/idempotency.ts), in the same table and under the REST request's method, path and body hash:
 * the first answer (2xx and 4xx) is stored and replayed to a retry, the same key with another request is refused
 * (422), a retry while the first runs is refused (409), and a 5xx gives the key back.
 */
export async function runKeyed(
  deps: Pick<Deps, 'orm' | 'idempotentAnswers' | 'idempotencyLockMs'>,
  logger: Logger,
  workspaceId: string,
  key: string,
  operation: KeyedOperation,
  run: (requestKey: string) => Promise<ToolAnswer>,
): Promise<KeyedAnswer> {
  const request: KeyedRequest = { workspaceId, key, method: operation.method, path: operation.path, hash: requestBodyHash(operation.body) };
  const held = await holdIdempotencyKey(deps, request, (error) => logger.debug({ err: error }, 'could not renew the lock of an Idempotency-Key'));
  if (held.state === 'answered') {
    const body = JSON.parse(held.answer.body) as unknown;
    if (held.answer.status >= 400) throw new ReplayedProblem(body);
    return { status: held.answer.status, body, ...(held.answer.headers.location && { location: held.answer.headers.location }), replayed: true };
  }
  let answer: ToolAnswer;
  try {
    answer = await run(held.requestKey);
  } catch (error) {
    const appError = appErrorOf(error);
    await held.settle(storedAnswerOf({ status: appError.status, body: problemOf(appError, operation.path, '') }, 'application/problem+json'));
    throw error;
  }
  await held.settle(storedAnswerOf(answer, 'application/json; charset=utf-8'));
  return { ...answer, replayed: false };
}

/** A refusal stored under the key (a 4xx problem document), given again to the retry. */
export class ReplayedProblem extends Error {
  readonly problem: unknown;

  constructor(problem: unknown) {
    super('a stored refusal replayed');
    this.problem = problem;
  }
}

/** A tool's answer as REST would have stored it: its status, the headers a replay gives back, the JSON body. */
function storedAnswerOf(answer: ToolAnswer, contentType: string): StoredAnswer {
  return {
    status: answer.status,
    headers: { 'content-type': contentType, ...(answer.location && { location: answer.location }) },
    body: JSON.stringify(answer.body),
  };
}

/** The refusal of a tool that publishes without a key: the why is the point (an agent retries). */
export function keyRequired(toolName: string): AppError {
  return new AppError(
    'validation-failed',
    `${toolName} needs an idempotencyKey (any unique string, such as a UUID, new for each publication): an agent that retries a call whose answer it lost would otherwise publish twice; with the key, the retry gets the first answer and nothing is sent again.`,
    { errors: [{ location: 'body', path: '/idempotencyKey', message: 'is required for publishing' }] },
  );
}
