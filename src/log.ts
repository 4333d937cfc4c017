import pino from 'pino';
import type { Logger } from 'pino';

/**
 * Structured JSON logs. Credentials are redacted by path as a second line of defence: the code
 * never logs request headers or keys in the first place.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'redline' },
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          '*.authorization',
          'key',
          '*.key',
          'token',
          '*.token',
          'secretKey',
          '*.secretKey',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
