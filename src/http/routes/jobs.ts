import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RedlineError } from '../../errors.js';
import { hashRequest } from '../../jobs/job-service.js';
import type { IdempotencyRequest, JobService, StoredResponse } from '../../jobs/job-service.js';
import { transition } from '../../jobs/transitions.js';
import type { JobStatus } from '../../store/schema.js';
import { projectOf } from '../auth.js';
import type { RateLimiter } from '../rate-limit.js';
import {
  conversation,
  createJobBody,
  errorBody,
  idempotencyHeaders,
  jobList,
  jobObject,
  jobParams,
  listQuery,
  messageBody,
  projectParams,
} from '../schemas.js';

export interface JobRoutesOptions {
  jobs: JobService;
  rateLimiter: RateLimiter;
  maxPromptChars: number;
  publicUrl: string;
}

const errors = {
  400: errorBody,
  401: errorBody,
  404: errorBody,
  409: errorBody,
  413: errorBody,
  415: errorBody,
  429: errorBody,
};
const security = [{ apiKey: [] }];

export const jobRoutes: FastifyPluginAsyncZod<JobRoutesOptions> = async (app, o) => {
  const jobUrl = (projectId: string, jobId: string) => `${o.publicUrl}/v2/agent/${projectId}/job/${jobId}`;

  function checkPrompt(prompt: string) {
    if ([...prompt].length > o.maxPromptChars) {
      throw new RedlineError('payload_too_large', `prompt is longer than ${o.maxPromptChars} characters`, {
        field: 'prompt',
      });
    }
  }

  function idempotencyOf(req: FastifyRequest, body: unknown): IdempotencyRequest | undefined {
    const key = (req.headers as { 'idempotency-key'?: string })['idempotency-key'];
    if (key === undefined) return undefined;
    // The concrete path, so one key sent to two different jobs is two different requests.
    return { key, requestHash: hashRequest(req.method, req.url.split('?')[0]!, body) };
  }

  /**
   * Replays a stored response without counting against the rate limit; otherwise takes one unit
   * of the project's hourly budget and runs `work`.
   */
  async function createWork(
    req: FastifyRequest,
    reply: FastifyReply,
    idem: IdempotencyRequest | undefined,
    work: () => Promise<StoredResponse>,
  ) {
    const project = projectOf(req);
    const stored = idem ? await o.jobs.findIdempotent(project.id, idem) : null;
    if (stored) {
      // The original response, headers included.
      if (stored.statusCode === 201) reply.header('location', jobUrl(project.id, stored.body.id));
      return reply.header('idempotent-replayed', 'true').code(stored.statusCode).send(stored.body);
    }
    const limit = await o.rateLimiter.hit(project.id);
    reply.header('ratelimit-limit', limit.limit);
    reply.header('ratelimit-remaining', limit.remaining);
    reply.header('ratelimit-reset', limit.resetSeconds);
    reply.header('ratelimit-policy', `${limit.limit};w=3600`);
    if (!limit.allowed) {
      reply.header('retry-after', limit.resetSeconds);
      throw new RedlineError(
        'rate_limited',
        `This project has used its ${limit.limit} job and message requests for this hour; retry in ${limit.resetSeconds} s.`,
      );
    }
    const result = await work();
    return reply.code(result.statusCode).send(result.body);
  }

  app.post(
    '/v2/agent/:projectId/job',
    {
      schema: {
        summary: 'Create an agent job',
        params: projectParams,
        body: createJobBody,
        headers: idempotencyHeaders,
        response: { 201: jobObject, ...errors },
        security,
      },
    },
    async (req, reply) => {
      checkPrompt(req.body.prompt);
      const project = projectOf(req);
      const idem = idempotencyOf(req, req.body);
      // Refused before it costs rate-limit budget: a job that could never run is not created.
      const model = o.jobs.resolveModel(project, req.body.model);
      return createWork(req, reply, idem, async () => {
        const result = await o.jobs.create(project, { prompt: req.body.prompt, model }, idem);
        reply.header('location', jobUrl(project.id, result.body.id));
        return result;
      });
    },
  );

  app.get(
    '/v2/agent/:projectId/job/:id',
    {
      schema: { summary: 'Get a job', params: jobParams, response: { 200: jobObject, ...errors }, security },
    },
    async (req) => o.jobs.get(projectOf(req), req.params.id),
  );

  app.post(
    '/v2/agent/:projectId/job/:id/message',
    {
      schema: {
        summary: 'Send a follow-up prompt',
        params: jobParams,
        body: messageBody,
        headers: idempotencyHeaders,
        response: { 200: jobObject, ...errors },
        security,
      },
    },
    async (req, reply) => {
      checkPrompt(req.body.prompt);
      const project = projectOf(req);
      // A message that must fail (unknown or archived job) fails before it costs rate-limit budget.
      const job = await o.jobs.get(project, req.params.id);
      const next = transition(job.status, 'message');
      if (!next.ok) throw new RedlineError('conflict', next.reason);
      const idem = idempotencyOf(req, req.body);
      return createWork(req, reply, idem, () => o.jobs.message(project, req.params.id, req.body, idem));
    },
  );

  app.get(
    '/v2/agent/:projectId/jobs',
    {
      schema: {
        summary: 'List jobs, newest first',
        params: projectParams,
        querystring: listQuery,
        response: { 200: jobList, ...errors },
        security,
      },
    },
    async (req) =>
      o.jobs.list(projectOf(req), {
        status: req.query.status as JobStatus | undefined,
        limit: req.query.limit,
        cursor: req.query.cursor,
      }),
  );

  app.post(
    '/v2/agent/:projectId/job/:id/archive',
    {
      schema: {
        summary: 'Archive a job',
        params: jobParams,
        response: { 200: jobObject, ...errors },
        security,
      },
    },
    async (req) => o.jobs.archive(projectOf(req), req.params.id),
  );

  app.get(
    '/v2/agent/:projectId/job/:id/messages',
    {
      schema: {
        summary: 'The job conversation: prompts, agent replies and tool calls, in order',
        params: jobParams,
        response: { 200: conversation, ...errors },
        security,
      },
    },
    async (req) => ({ messages: await o.jobs.messages(projectOf(req), req.params.id) }),
  );
};
