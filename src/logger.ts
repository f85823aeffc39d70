import { pino, type Logger } from 'pino';

export type { Logger };

// Structured JSON logs on stdout. Secrets never reach them: authorization headers, signed-URL signatures and any
// field named like a secret are censored here, once, for every logger in the process.
export function createLogger(options: { level: string; name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.key',
        '*.secret',
        '*.password',
        '*.apiKey',
        '*.accessToken',
      ],
      censor: '[redacted]',
    },
  });
}
