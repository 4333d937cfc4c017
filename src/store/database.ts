import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import type { SqliteDatabase } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.js';
import { migrationProvider } from './migrations/index.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** Postgres connection settings, for the dedicated LISTEN connection; null on SQLite. */
  postgresUrl: string | null;
  /** SQLite file path; null on Postgres. */
  sqliteFile: string | null;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  poolSize?: number;
}

// int8 (bigint) columns hold epoch milliseconds, which fit a JS number exactly.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 && format !== 'binary') return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  },
};

export function openDatabase(options: DatabaseOptions): Database {
  if (options.databaseUrl !== null) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      types: pgTypes as pg.CustomTypesConfig,
    });
    // An idle client that loses its connection emits 'error'; without a listener that kills the process.
    pool.on('error', () => undefined);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      postgresUrl: options.databaseUrl,
      sqliteFile: null,
      close: () => db.destroy(),
    };
  }
  // The database holds job prompts and transcripts: for this user only.
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(options.dataDir, 'redline.db');
  const db = new Kysely<DB>({
    dialect: new SqliteDialect({
      database: async () => {
        const conn = new SQLite(file);
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = NORMAL');
        conn.pragma('foreign_keys = ON');
        // Another process (the CLI, a test) may hold the write lock for a moment.
        conn.pragma('busy_timeout = 5000');
        return withStatementCache(conn);
      },
    }),
  });
  return { db, dialect: 'sqlite', postgresUrl: null, sqliteFile: file, close: () => db.destroy() };
}

const STATEMENT_CACHE_SIZE = 200;

/**
 * Kysely prepares every query anew; preparing costs more than running the query itself on the
 * hot paths (auth, GET job). The application issues a small, fixed set of SQL strings, so their
 * prepared statements are kept. Safe because Kysely runs one statement at a time per connection.
 */
function withStatementCache(conn: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => conn.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = conn.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}

export async function migrate(db: Kysely<DB>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    migrationTableName: 'redline_migrations',
    migrationLockTableName: 'redline_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
