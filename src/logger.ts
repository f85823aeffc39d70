import { pino, type Logger } from 'pino';

export type { Logger };

// Structured JSON logs on stdout (stderr for a command-line tool, whose stdout is its result). Secrets never reach
// them: authorization headers, signed-URL signatures and any field named like a secret are censored here, once, for
// every logger in the process.
export type LoggerOptions = {
  level: string;
  name: string;
  format?: 'json' | 'pretty';
  stderr?: boolean;
  /**
   * A file the JSON lines go to instead of stdout, written the way stdout is (pino's asynchronous SonicBoom stream):
   * the benchmarks run the service in their own process, whose stdout is their table.
   */
  file?: string;
};

export function createLogger(options: LoggerOptions): Logger {
  const fd = options.stderr ? 2 : 1;
  return pino(
    {
      name: options.name,
      level: options.level,
      // Human-readable lines for `npm run dev` (pino-pretty is a development dependency).
      ...(options.format === 'pretty'
        ? { transport: { target: 'pino-pretty', options: { ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l', destination: fd } } }
        : {}),
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          '*.key',
          '*.secret',
          '*.password',
          '*.apiKey',
          '*.accessToken',
          '*.botToken',
          '*.webhookUrl',
        ],
        censor: '[redacted]',
      },
    },
    options.file ? pino.destination(options.file) : options.stderr && options.format !== 'pretty' ? pino.destination({ fd, sync: true }) : undefined,
  );
}
