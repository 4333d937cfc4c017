import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/databases.js';
import type { TestDatabase } from '../support/databases.js';
import { runRedline } from '../support/processes.js';
import { makeDocsRepo } from '../support/repos.js';
import { isWellFormedApiKey } from '../../src/keys/api-key-format.js';

describe('redline CLI: projects and keys', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    env = db.env;
  });
  afterAll(async () => db?.drop());

  it('creates and lists projects, creates, lists and revokes keys', async () => {
    const repo = makeDocsRepo();
    const created = await runRedline(
      [
        'project',
        'create',
        '--name',
        'Acme docs',
        '--repository',
        repo,
        '--ref',
        'main',
        '--model',
        'openai:gpt-4.1',
        '--json',
      ],
      env,
    );
    expect(created.code).toBe(0);
    const project = JSON.parse(created.output);
    expect(project).toMatchObject({
      name: 'Acme docs',
      repository: repo,
      ref: 'main',
      host: 'local',
      model: 'openai:gpt-4.1',
    });
    expect(project.id).toMatch(/^prj_/);

    const list = await runRedline(['project', 'list', '--json'], env);
    expect(JSON.parse(list.output)).toEqual([project]);
    const table = await runRedline(['project', 'list'], env);
    expect(table.output).toContain(project.id);

    const key = await runRedline(['key', 'create', '--project', project.id, '--name', 'ci', '--json'], env);
    expect(key.code).toBe(0);
    const k = JSON.parse(key.output);
    expect(Object.keys(k).sort()).toEqual(['createdAt', 'id', 'key', 'name', 'prefix', 'projectId']);
    expect(isWellFormedApiKey(k.key)).toBe(true);
    expect(k.key.startsWith(k.prefix)).toBe(true);
    expect(k).toMatchObject({ projectId: project.id, name: 'ci' });

    const human = await runRedline(['key', 'create', '--project', project.id], env);
    expect(human.output).toMatch(/rdl_[0-9A-Za-z]{38}/);

    const keys = await runRedline(['key', 'list', '--project', project.id, '--json'], env);
    const listed = JSON.parse(keys.output);
    expect(listed).toHaveLength(2);
    expect(keys.output).not.toContain(k.key);
    expect(listed[0]).toMatchObject({ id: k.id, lastUsedAt: null, revokedAt: null });

    const revoked = await runRedline(['key', 'revoke', k.id], env);
    expect(revoked.code).toBe(0);
    const after = JSON.parse(
      (await runRedline(['key', 'list', '--project', project.id, '--json'], env)).output,
    );
    expect(after[0].revokedAt).not.toBeNull();
  });

  it('refuses bad input with a clear message and stores nothing', async () => {
    const before = (await runRedline(['project', 'list', '--json'], env)).output;
    const cases: [string[], RegExp][] = [
      [['project', 'create', '--name', 'x', '--repository', '/does/not/exist'], /does not exist/],
      [['project', 'create', '--name', 'x', '--repository', makeDocsRepo(), '--host', 'bitbucket'], /host/],
      [['project', 'create', '--name', 'x', '--repository', makeDocsRepo(), '--ref', '-x'], /ref/],
      [
        ['project', 'create', '--name', 'x', '--repository', makeDocsRepo(), '--docs-root', '../up'],
        /docsRoot/,
      ],
      [['project', 'create', '--name', 'x', '--repository', makeDocsRepo(), '--model', 'gpt4'], /model/],
      [['project', 'create', '--name', ' ', '--repository', makeDocsRepo()], /name/],
      [
        [
          'project',
          'create',
          '--name',
          'x',
          '--repository',
          'https://user:tok@github.com/a/b',
          '--host',
          'github',
        ],
        /credentials/,
      ],
      [['project', 'create', '--name', 'x'], /repository/],
      [['key', 'create', '--project', 'prj_nope'], /not found/],
      [['key', 'revoke', 'key_nope'], /not found/],
    ];
    for (const [args, message] of cases) {
      const r = await runRedline(args, env);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.output).toMatch(message);
      expect(r.output).not.toMatch(/at .+\.(ts|js):\d+/);
    }
    expect((await runRedline(['project', 'list', '--json'], env)).output).toBe(before);
  });

  it('reports each bad environment variable on its own line and exits 2', async () => {
    const r = await runRedline(['project', 'list'], {
      ...env,
      REDLINE_PORT: 'x',
      REDLINE_MAX_PROMPT_CHARS: '0',
    });
    expect(r.code).toBe(2);
    expect(r.output).toMatch(/^redline: REDLINE_PORT .+$/m);
    expect(r.output).toMatch(/^redline: REDLINE_MAX_PROMPT_CHARS .+$/m);
  });

  it('redline worker refuses to start without REDLINE_PUBLIC_URL, which its PR links need', async () => {
    const r = await runRedline(['worker'], env);
    expect(r.code).toBe(2);
    expect(r.output).toContain('REDLINE_PUBLIC_URL must be set');
  });

  it('pr list says so when the project does not exist', async () => {
    const r = await runRedline(['pr', 'list', '--project', 'prj_nope'], env);
    expect(r.code).toBe(1);
    expect(r.output).toContain('Project prj_nope not found');
  });

  it('migrate is safe to run again', async () => {
    expect((await runRedline(['migrate'], env)).code).toBe(0);
    const again = await runRedline(['migrate'], env);
    expect(again.code).toBe(0);
    expect(again.output).toContain('already up to date');
  });
});

describe('revoking a key from the CLI while a server runs', () => {
  it('is refused by the server at once (SQLite: watched marker file)', async () => {
    const { startTestServer } = await import('../support/server.js');
    const { waitUntil } = await import('../support/processes.js');
    const s = await startTestServer('sqlite');
    try {
      const k = await s.runtime.keys.create(s.project.id, 'to revoke');
      const get = () =>
        s.inject({
          method: 'GET',
          url: `/v2/agent/${s.project.id}/jobs`,
          headers: { authorization: `Bearer ${k.key}` },
        });
      expect((await get()).statusCode).toBe(200);
      const r = await runRedline(['key', 'revoke', k.id], s.database.env);
      expect(r.code).toBe(0);
      // The watch event arrives asynchronously, well inside the 5 s cache lifetime.
      await waitUntil(
        async () => (await get()).statusCode === 401,
        'the revocation to reach the server',
        3000,
      );
    } finally {
      await s.close();
    }
  });
});
