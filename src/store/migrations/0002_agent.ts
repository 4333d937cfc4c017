import type { Kysely, Migration } from 'kysely';

/** What the docs agent adds: usage, checks and branch on jobs, step data, and local pull requests. */
export const agent: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('jobs').addColumn('branch', 'text').execute();
    await db.schema.alterTable('jobs').addColumn('usage', 'text').execute();
    await db.schema.alterTable('jobs').addColumn('checks', 'text').execute();
    await db.schema.alterTable('messages').addColumn('data', 'text').execute();

    await db.schema
      .createTable('pull_requests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
      .addColumn('number', 'integer', (c) => c.notNull())
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id'))
      .addColumn('head', 'text', (c) => c.notNull())
      .addColumn('base', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('draft', 'integer', (c) => c.notNull())
      .addColumn('head_sha', 'text', (c) => c.notNull())
      .addColumn('base_sha', 'text', (c) => c.notNull())
      .addColumn('diff', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('pull_requests_number', ['project_id', 'number'])
      .addUniqueConstraint('pull_requests_head', ['project_id', 'head'])
      .execute();
  },
};
