import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { pullRequestPage } from '../../dashboard/pull-request-page.js';
import { notFound } from '../../errors.js';
import { getPullRequest } from '../../hosts/local.js';
import type { DB } from '../../store/schema.js';

export interface PullRoutesOptions {
  db: Kysely<DB>;
  publicUrl: string;
}

/** The page a local pull request's prLink points at. */
export const pullRoutes: FastifyPluginAsyncZod<PullRoutesOptions> = async (app, o) => {
  app.get(
    '/projects/:projectId/pulls/:number',
    {
      schema: {
        hide: true,
        params: z.strictObject({
          projectId: z.string().max(100),
          number: z.coerce.number().int().min(1).max(1e9),
        }),
      },
    },
    async (req, reply) => {
      const pr = await getPullRequest(o.db, o.publicUrl, req.params.projectId, req.params.number);
      if (!pr) throw notFound('Pull request');
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(pullRequestPage(pr));
    },
  );
};
