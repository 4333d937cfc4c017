import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

const WINDOW_MS = 60 * 60 * 1000;

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends and the count starts again. */
  resetSeconds: number;
}

/**
 * Per-project limit on job-creating and message requests, in fixed hourly windows counted in the
 * database so every server process sharing it enforces one limit.
 */
export class RateLimiter {
  constructor(
    private readonly db: Kysely<DB>,
    readonly limit: number,
  ) {}

  async hit(projectId: string, now = Date.now()): Promise<RateLimitState> {
    const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    const row = await this.db
      .insertInto('rate_limits')
      .values({ project_id: projectId, window_start: windowStart, hits: 1 })
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'window_start'])
          .doUpdateSet((eb) => ({ hits: eb('rate_limits.hits', '+', 1) })),
      )
      .returning('hits')
      .executeTakeFirstOrThrow();
    // Old windows are useless; clearing them now and then keeps the table at one row per project.
    if (row.hits === 1) {
      await this.db
        .deleteFrom('rate_limits')
        .where('project_id', '=', projectId)
        .where('window_start', '<', windowStart)
        .execute();
    }
    const hits = Number(row.hits);
    return {
      allowed: hits <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - hits),
      resetSeconds: Math.ceil((windowStart + WINDOW_MS - now) / 1000),
    };
  }
}
