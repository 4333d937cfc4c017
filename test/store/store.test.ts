import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/store/database.js';
import { migrationProvider } from '../../src/store/migrations/index.js';

const ALL = Object.keys(await migrationProvider.getMigrations()).sort();
import type { Database } from '../../src/store/database.js';
import { InProcessNotifier } from '../../src/jobs/notifier.js';
import { ApiKeyStore } from '../../src/keys/api-keys.js';
import { ProjectStore } from '../../src/projects/projects.js';
import { POSTGRES_URL, createTestDatabase, describeEachDialect } from '../support/databases.js';
import type { TestDatabase } from '../support/databases.js';
import { makeDocsRepo } from '../support/repos.js';

describeEachDialect('store', (dialect) => {
  let t: TestDatabase;
  let d: Database;
  beforeAll(async () => {
    t = await createTestDatabase(dialect);
    d = openDatabase({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
  });
  afterAll(async () => {
    await d?.close();
    await t?.drop();
  });

  it('migrates once; a second run applies nothing', async () => {
    expect(await migrate(d.db)).toEqual(ALL);
    expect(await migrate(d.db)).toEqual([]);
  });

  it('round-trips projects with times as numbers and lists them', async () => {
    const projects = new ProjectStore(d.db);
    const p = await projects.create({
      name: 'Docs',
      repository: makeDocsRepo(),
      allowedModels: ['openai:gpt-4.1', 'anthropic:claude-sonnet-4-5'],
    });
    expect(await projects.get(p.id)).toEqual(p);
    expect(p.allowedModels).toEqual(['openai:gpt-4.1', 'anthropic:claude-sonnet-4-5']);
    expect(Date.parse(p.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    const row = await d.db
      .selectFrom('projects')
      .select('created_at')
      .where('id', '=', p.id)
      .executeTakeFirstOrThrow();
    expect(typeof row.created_at).toBe('number');
    expect((await projects.list()).map((x) => x.id)).toContain(p.id);
    expect(await projects.get('prj_missing')).toBeNull();
  });

  it('keeps only the SHA-256 of a key; revoked and unknown keys do not authenticate', async () => {
    const projects = new ProjectStore(d.db);
    const keys = new ApiKeyStore(d.db, new InProcessNotifier());
    const p = await projects.create({ name: 'Keys', repository: makeDocsRepo() });
    const k = await keys.create(p.id, 'ci');
    const stored = await d.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', k.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(k.key.slice(4, 36));
    expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/);

    const auth = await keys.authenticate(k.key);
    expect(auth).toMatchObject({ keyId: k.id, project: { id: p.id } });
    expect((await keys.list(p.id))[0]!.lastUsedAt).not.toBeNull();

    const revoked = await keys.revoke(k.id);
    expect(revoked.revokedAt).not.toBeNull();
    expect(await keys.authenticate(k.key)).toBeNull();
    // Revoking again keeps the first time.
    expect((await keys.revoke(k.id)).revokedAt).toBe(revoked.revokedAt);
  });
});

// Several processes start against one database only on Postgres (SQLite is one process by design);
// the migration lock must make concurrent start-ups safe there.
describe.skipIf(!POSTGRES_URL)('store [postgres]', () => {
  it('migrates safely from two processes at once', async () => {
    const t2 = await createTestDatabase('postgres');
    const a = openDatabase({ databaseUrl: t2.databaseUrl, dataDir: t2.dataDir });
    const b = openDatabase({ databaseUrl: t2.databaseUrl, dataDir: t2.dataDir });
    try {
      const [ra, rb] = await Promise.all([migrate(a.db), migrate(b.db)]);
      expect([...ra, ...rb].sort()).toEqual(ALL);
    } finally {
      await a.close();
      await b.close();
      await t2.drop();
    }
  });
});
