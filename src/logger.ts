import { pino, type Logger } from 'pino';
import { redactCredentials } from './common/redaction/redact-credentials.ts';

export type { Logger };

// Structured JSON logs on stdout (stderr for a command-line tool, whose stdout is its result). Secrets never reach
// them: authorization headers and any field named like a secret are censored here, once, for every logger in the
// process, and an error's words or a URL (an `err`, an `error`, a `url`) lose the credentials they quote
// (redact-credentials.ts; the request logger does the same for the URLs it logs).
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
      serializers: { err: redactedError, error: redactedError, url: (url: unknown) => (typeof url === 'string' ? redactCredentials(url) : url) },
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

// A library's error message may quote the URL it was fetching, query string and all.
function redactedError(error: unknown): unknown {
  return redactedStrings(error instanceof Error ? pino.stdSerializers.err(error) : error, 0);
}

function redactedStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactCredentials(value);
  if (typeof value !== 'object' || value === null || depth > 4) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => redactedStrings(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactedStrings(item, depth + 1)]));
}
