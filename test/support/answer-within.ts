/** The response, or undefined when none came within `ms`: for tests that must tell "answered" from "hung". */
export async function answerWithin<T>(response: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolveTimeout) => (timer = setTimeout(() => resolveTimeout(undefined), ms)));
  try {
    return await Promise.race([response, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
