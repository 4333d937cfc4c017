import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RedlineError } from '../../errors.js';
import { sendError } from '../errors.js';
import { health } from '../schemas.js';

export interface HealthOptions {
  databaseReady: () => Promise<boolean>;
}

export const healthRoutes: FastifyPluginAsyncZod<HealthOptions> = async (app, o) => {
  app.get('/healthz', { schema: { hide: true, response: { 200: health } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    if (!(await o.databaseReady())) {
      return sendError(reply, new RedlineError('unavailable', 'The database is unreachable.'));
    }
    return { status: 'ok' };
  });
};
