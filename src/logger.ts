import { pino, type Logger } from 'pino';

export type { Logger };

// Structured JSON logs on stdout. Secrets never reach them: authorization headers, signed-URL signatures and any
// field named like a secret are censored here, once, for every logger in the process.
export function createLogger(options: { level: string; name: string; format?: 'json' | 'pretty' }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    // Human-readable lines for `npm run dev` (pino-pretty is a development dependency).
    ...(options.format === 'pretty' ? { transport: { target: 'pino-pretty', options: { ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' } } } : {}),
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
