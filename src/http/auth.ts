import type { FastifyReply, FastifyRequest } from 'fastify';
import { RedlineError, notFound } from '../errors.js';
import type { ApiKeyStore } from '../keys/api-keys.js';
import type { Project } from '../projects/projects.js';
import { sendError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The project the request's key belongs to; set by the auth hook on every /v2/agent route. */
    project: Project | null;
  }
}

export function projectOf(req: FastifyRequest): Project {
  if (!req.project) throw new Error('route is missing the authentication hook');
  return req.project;
}

function unauthorized(reply: FastifyReply, invalidToken: boolean) {
  // RFC 6750: tell the client a Bearer token is wanted, and whether the one it sent was refused.
  reply.header(
    'www-authenticate',
    invalidToken ? 'Bearer realm="redline", error="invalid_token"' : 'Bearer realm="redline"',
  );
  return sendError(
    reply,
    new RedlineError(
      'unauthorized',
      invalidToken
        ? 'The API key is not valid: it is malformed, unknown or revoked.'
        : 'An API key is required: send Authorization: Bearer <key>.',
    ),
  );
}

/**
 * Authenticates the Bearer key and checks it belongs to the project in the path. A valid key used
 * on another project's path gets 404, so keys cannot probe which projects exist.
 */
export function authenticate(keys: ApiKeyStore) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) return unauthorized(reply, header !== undefined);
    const auth = await keys.authenticate(match[1]!);
    if (!auth) return unauthorized(reply, true);
    const projectId = (req.params as { projectId?: string }).projectId;
    if (projectId !== undefined && projectId !== auth.project.id)
      return sendError(reply, notFound('Project'));
    req.project = auth.project;
  };
}
