import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../store/schema.js';
import { RedlineError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { JobService } from '../jobs/job-service.js';
import type { ApiKeyStore } from '../keys/api-keys.js';
import { authenticate } from './auth.js';
import { errorHandler, sendError } from './errors.js';
import type { RateLimiter } from './rate-limit.js';
import { healthRoutes } from './routes/health.js';
import { jobRoutes } from './routes/jobs.js';
import { pullRoutes } from './routes/pulls.js';

export interface AppOptions {
  log: Logger;
  db: Kysely<DB>;
  jobs: JobService;
  keys: ApiKeyStore;
  rateLimiter: RateLimiter;
  publicUrl: string;
  maxBodyBytes: number;
  maxPromptChars: number;
  /** Whether the database answers; /readyz reports it. */
  databaseReady: () => Promise<boolean>;
}

export interface RedlineApp {
  app: FastifyInstance;
  /** From now on answer 503 `unavailable`: the process is shutting down. */
  drain(): void;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
// Unique across processes and restarts without paying for random bytes on every request.
const REQUEST_ID_PREFIX = newId('msg').slice(-10).toLowerCase();
let requestCount = 0;

export async function buildApp(o: AppOptions): Promise<RedlineApp> {
  let draining = false;
  const app = Fastify({
    loggerInstance: o.log as FastifyBaseLogger,
    bodyLimit: o.maxBodyBytes,
    // Absurd ids must reach the handlers, which answer 404 for them, not the router's 414.
    routerOptions: { maxParamLength: 16 * 1024 },
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given)
        ? given
        : `${REQUEST_ID_PREFIX}-${++requestCount}`;
    },
    return503OnClosing: false,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Responses are documented with their schemas but written with plain JSON.stringify: the
  // handlers build them from typed views, and re-validating every response costs throughput.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler(errorHandler);
  app.decorateRequest('project', null);

  // Only JSON bodies; an empty body is "no body" (POST …/archive needs none).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new RedlineError('invalid_request', 'The request body is not valid JSON.'), undefined);
    }
  });

  // Callback style, not async: this runs on every request and needs no promise.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    if (draining && req.url !== '/healthz') {
      reply.header('retry-after', '5');
      sendError(reply, new RedlineError('unavailable', 'The server is shutting down; retry shortly.'));
      return;
    }
    done();
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Redline agent job API',
        version: '2.0.0',
        description: 'Post a prompt for a project; an agent edits its docs and opens a pull request.',
      },
      servers: [{ url: o.publicUrl }],
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'rdl_… admin API key' } },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  await app.register(healthRoutes, { databaseReady: o.databaseReady });
  await app.register(pullRoutes, { db: o.db, publicUrl: o.publicUrl });
  app.get('/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(async (v2) => {
    v2.addHook('onRequest', authenticate(o.keys));
    await v2.register(jobRoutes, {
      jobs: o.jobs,
      rateLimiter: o.rateLimiter,
      maxPromptChars: o.maxPromptChars,
      publicUrl: o.publicUrl,
    });
  });

  const auth = authenticate(o.keys);
  app.setNotFoundHandler(async (req, reply) => {
    // Unknown /v2 paths still want a key, so they tell an anonymous caller nothing.
    if (req.url.startsWith('/v2/')) {
      await auth(req, reply);
      if (reply.sent) return reply;
    }
    return sendError(reply, notFound('Resource'));
  });

  return {
    app,
    drain: () => {
      draining = true;
    },
  };
}
