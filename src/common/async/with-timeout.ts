/**
 * `promise`, or a rejection once `ms` have passed without its answer. The work itself goes on (nothing here can
 * stop it): use it where giving up waiting is safe, such as a probe or an idempotent write another path repeats.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
