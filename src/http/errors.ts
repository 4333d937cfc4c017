import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { RedlineError } from '../errors.js';
import type { ErrorCode } from '../errors.js';

const STATUS_OF: Record<ErrorCode, number> = {
  invalid_request: 400,
  model_not_configured: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

export function sendError(reply: FastifyReply, err: RedlineError): FastifyReply {
  const body: Record<string, unknown> = { error: err.message, code: err.code };
  if (err.details) body.details = err.details;
  return reply.code(STATUS_OF[err.code]).type('application/json; charset=utf-8').send(body);
}

// Postgres connection failures and server shutdowns (class 08, 57P0x), and pool/network errors:
// the database is unreachable, which is 503, not a bug.
function isDatabaseUnavailable(err: { code?: unknown; message?: string }): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  return (
    /^(08|57P0)/.test(code) ||
    code === '3D000' ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'SQLITE_BUSY', 'SQLITE_CANTOPEN'].includes(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client was closed/i.test(err.message ?? '')
  );
}

function describeValidation(err: FastifyError): RedlineError {
  const where = err.validationContext ?? 'request';
  const issues = (err.validation ?? []).map((v) => {
    const params = v.params as { keys?: string[] };
    const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (v.keyword === 'unrecognized_keys' && params.keys) {
      return {
        field: params.keys.join(', '),
        message: `unknown field${params.keys.length > 1 ? 's' : ''}: ${params.keys.join(', ')}`,
      };
    }
    if (path === '' && v.keyword === 'invalid_type') {
      return { field: where, message: `the ${where} must be a JSON object` };
    }
    const message = v.message?.startsWith(path) ? v.message : `${path || where}: ${v.message}`;
    return { field: path || where, message };
  });
  const first = issues[0] ?? { field: where, message: `invalid ${where}` };
  return new RedlineError('invalid_request', `Invalid ${where}: ${first.message}`, {
    field: first.field,
    issues,
  });
}

/** Maps any error to the JSON error body of DESIGN.md §1; never a stack trace, never a secret. */
function toRedlineError(err: FastifyError): RedlineError {
  if (err instanceof RedlineError) return err;
  if (hasZodFastifySchemaValidationErrors(err) || err.validation) return describeValidation(err);
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new RedlineError('payload_too_large', 'The request body is larger than this server accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new RedlineError(
        'unsupported_media_type',
        'The request body must be JSON (Content-Type: application/json).',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new RedlineError('invalid_request', 'Content-Length does not match the body.');
  }
  if (isDatabaseUnavailable(err)) {
    return new RedlineError('unavailable', 'The service cannot reach its database right now; retry shortly.');
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new RedlineError('invalid_request', 'The request could not be understood.');
  }
  return new RedlineError('internal', 'Something went wrong on the server; see its log for the request id.');
}

export function errorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const mapped = toRedlineError(err);
  if (mapped.code === 'internal' || mapped.code === 'unavailable') {
    req.log.error({ err: { message: err.message, code: err.code, stack: err.stack } }, 'request failed');
  }
  if (mapped.code === 'unavailable') reply.header('retry-after', '5');
  return sendError(reply, mapped);
}
