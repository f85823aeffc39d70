import type { Response } from 'express';
import type { Caller } from '../domain/caller.ts';

/** The authenticated caller, set by the authenticate middleware on every /api/v1 request. */
export function callerOf(res: Response): Caller {
  const caller = (res.locals as { caller?: Caller }).caller;
  if (!caller) throw new Error('No authenticated caller on this request');
  return caller;
}
