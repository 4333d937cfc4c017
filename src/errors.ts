/** The machine codes of DESIGN.md §1; the HTTP layer maps each to its status. */
export type ErrorCode =
  | 'invalid_request'
  | 'model_not_configured'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

/** An error meant for the caller: its message is safe to show and holds no secret. */
export class RedlineError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RedlineError';
  }
}

export const notFound = (what: string) => new RedlineError('not_found', `${what} not found.`);
