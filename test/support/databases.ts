import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe } from 'vitest';

/**
 * The store, API and queue suites run on both dialects. Postgres comes from
 * REDLINE_TEST_DATABASE_URL (CI always sets it); each test database is created fresh and dropped.
 */
export const POSTGRES_URL = process.env.REDLINE_TEST_DATABASE_URL || null;

if (!POSTGRES_URL) {
  if (process.env.CI) {
    throw new Error(
      'REDLINE_TEST_DATABASE_URL must be set in CI: the Postgres half of the suite is required.',
    );
  }
  console.warn('REDLINE_TEST_DATABASE_URL is not set: skipping the Postgres half of the suite.');
}

export type DialectName = 'sqlite' | 'postgres';
export const DIALECTS: DialectName[] = ['sqlite', 'postgres'];

export interface TestDatabase {
  dialect: DialectName;
  /** null for SQLite. */
  databaseUrl: string | null;
  dataDir: string;
  /** Environment a Redline process needs to use this database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-test-'));
  const env: Record<string, string> = { REDLINE_DATA_DIR: dataDir };
  if (dialect === 'sqlite') {
    return {
      dialect,
      databaseUrl: null,
      dataDir,
      env,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  if (!POSTGRES_URL) throw new Error('REDLINE_TEST_DATABASE_URL is not set');
  const name = `redline_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  env.REDLINE_DATABASE_URL = databaseUrl;
  return {
    dialect,
    databaseUrl,
    dataDir,
    env,
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `describe` once per dialect; the Postgres one is skipped (and says so) without a test database. */
export function describeEachDialect(title: string, fn: (dialect: DialectName) => void): void {
  for (const dialect of DIALECTS) {
    const skip = dialect === 'postgres' && !POSTGRES_URL;
    describe.skipIf(skip)(`${title} [${dialect}]`, () => fn(dialect));
  }
}
