import Database from 'better-sqlite3';
import pg from 'pg';
import { expect, it } from 'vitest';
import { POSTGRES_URL, describeEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/server.js';

describeEachDialect('database unreachable', (dialect) => {
  it('answers 503 unavailable (and /readyz 503) instead of a 500 or a hang', async () => {
    const s = await startTestServer(dialect);
    let release = () => {};
    try {
      expect((await s.api('GET', 'jobs')).statusCode).toBe(200);
      if (dialect === 'postgres') {
        // Take the database away under the running server.
        const admin = new pg.Client({ connectionString: POSTGRES_URL! });
        await admin.connect();
        await admin.query(`DROP DATABASE ${new URL(s.database.databaseUrl!).pathname.slice(1)} WITH (FORCE)`);
        await admin.end();
      } else {
        // Another process holds SQLite's write lock for longer than the busy timeout.
        const holder = new Database(s.runtime.database.sqliteFile!);
        holder.exec('BEGIN EXCLUSIVE');
        release = () => {
          if (!holder.open) return;
          holder.exec('ROLLBACK');
          holder.close();
        };
      }
      const res = await s.api('POST', 'job', { prompt: 'x' });
      release();
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'unavailable' });
      expect(res.headers['retry-after']).toBeDefined();
      if (dialect === 'postgres') {
        // A SQLite reader is not blocked by a writer's lock; an absent Postgres database is unreachable.
        const ready = await s.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(503);
        expect(ready.json().code).toBe('unavailable');
      }
      expect((await s.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      release();
      await s.close();
    }
  });

  it('answers 503 unavailable while shutting down', async () => {
    const s = await startTestServer(dialect);
    try {
      s.runtime.http!.drain();
      const res = await s.api('GET', 'jobs');
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('unavailable');
    } finally {
      await s.close();
    }
  });
});
