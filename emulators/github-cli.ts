// Runs the GitHub emulator as a process for the demo: one repository (acme/app) with two pull
// requests — the first with a `/docs` comment on it by a member, the second played under
// `followUp: at-merge` to its merge — a docs repository (acme/docs) whose pull requests the
// service's jobs open, and a workflow token that may comment, react and set statuses in acme/app
// and read everywhere. It writes its URLs, the token, the ids and each pull request's heads, as
// JSON, to --url-file; the request log goes to stderr, without the Authorization header (a
// GraphQL mutation marked as one, so a reader can tell writes from reads). With --marks, each line
// read from stdin is written back to stderr after the log of every request before it; a line
// `push N SHA` first moves pull request N's head to SHA (as a push to it does, its files with it),
// and `merge N SHA` merges it with SHA as its merge commit; with --state-file too, the reactions to
// the first pull request's comments (no REST route of the emulator lists them) are written there,
// as JSON, just before the line comes back; `ask N` adds a reviewer's `/docs` request on acme/docs#N
// (and its reactions go in the state file too); the end of stdin stops the emulator.
import { renameSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { startGitHubEmulator, type StoredFile } from './github.js';

const DEMO_TOKEN = 'ghs_DemoWorkflowToken000000000000000000000';
/** The docs repository's token (a GitHub App's, as the recipe makes it): it writes in acme/docs. */
const DEMO_DOCS_TOKEN = 'ghs_DemoDocsAppToken0000000000000000000000';
/** What a reviewer asks on the first pull request's docs pull request. */
const DOCS_REQUEST = '/docs Say that a dry run prints the plan and changes nothing';
const REQUEST = '/docs Document the new --dry-run flag of the deploy command';
/** The pull request's head before and after each of the two pushes the demo plays. */
const HEADS = [
  '1a2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5',
  '2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5d6',
  '3c4d5e6f708192a3b4c5d6e7f80912a3b4c5d6e7',
];
/** What each push changed: the first the code, the second only a test (outside the demo's `paths`). */
const file = (filename: string) => ({ filename, status: 'modified', additions: 4, deletions: 1 });

/**
 * The second pull request (`followUp: at-merge`): its head when opened and after each of its
 * three pushes, then its merge commit; each push's commit, its message and what it changed (with
 * a patch, as the agent's context shows it).
 */
const AT_MERGE = {
  heads: [
    'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    'b2c3d4e5f60718293a4b5c6d7e8f901234567891',
    'c3d4e5f60718293a4b5c6d7e8f9012345678912a',
    'd4e5f60718293a4b5c6d7e8f9012345678912ab3',
  ] as const,
  merge: 'e5f60718293a4b5c6d7e8f9012345678912ab3c4',
};
const change = (filename: string, status: string, patch: string) => {
  const lines = patch.split('\n');
  const count = (sign: string) => lines.filter((line) => line.startsWith(sign)).length;
  return { filename, status, additions: count('+'), deletions: count('-'), patch };
};
const ROLLBACK = change(
  'src/rollback.ts',
  'added',
  '@@ -0,0 +1,3 @@\n+export async function rollback(release: string): Promise<void> {\n+  await deploy(previous(release));\n+}',
);
const PUSHES = [
  {
    message: 'Keep the last three releases for rollback',
    files: [change('src/releases.ts', 'modified', '@@ -4 +4 @@\n-const KEEP = 1;\n+const KEEP = 3;')],
  },
  {
    message: 'Add the rollback command to the CLI',
    files: [
      change(
        'src/cli.ts',
        'modified',
        "@@ -12,0 +13 @@\n+  .command('rollback <release>', 'Go back to an earlier release')",
      ),
    ],
  },
  {
    message: 'rollback: --to picks the release',
    files: [
      change(
        'src/rollback.ts',
        'modified',
        '@@ -1 +1 @@\n-export async function rollback(release: string)\n+export async function rollback(release: string, to?: string)',
      ),
      change('src/rollback.test.ts', 'added', "@@ -0,0 +1 @@\n+test('rollback --to', () => {});"),
    ],
  },
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'url-file': { type: 'string' },
      prefix: { type: 'string' },
      marks: { type: 'boolean' },
      'state-file': { type: 'string' },
    },
    strict: true,
  });
  const prefix = values.prefix === '/api/v3' ? '/api/v3' : '';
  const github = await startGitHubEmulator({ prefix });
  github.grant(DEMO_TOKEN, { login: 'github-actions[bot]', type: 'Bot', read: '*', write: ['acme/app'] });
  github.grant(DEMO_DOCS_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: '*', write: ['acme/docs'] });
  // mona reviews the docs: she may write in acme/docs, where her request is judged.
  github.collaborator('acme/docs', 'mona', 'write');
  // The recipe's workflow, which a run on the docs PR dispatches for the thread's own run.
  github.workflow('acme/app', 'docs.yml', { inputs: ['docs-agent-thread', 'docs-agent-docs'] });
  // octocat asks for docs: someone with write access, as GitHub's collaborator API tells the gate.
  github.collaborator('acme/app', 'octocat', 'write');
  const pr = github.thread('acme/app', {
    headSha: HEADS[0],
    files: [file('src/deploy.ts'), file('src/deploy.test.ts')],
  });
  github.comparison('acme/app', `${HEADS[0]}...${HEADS[1]}`, {
    commits: [],
    files: [file('src/deploy.ts'), file('src/deploy.test.ts')],
  });
  github.comparison('acme/app', `${HEADS[1]}...${HEADS[2]}`, {
    commits: [],
    files: [file('src/deploy.test.ts')],
  });
  const request = github.addComment('acme/app', pr.number, { login: 'octocat', body: REQUEST });
  // The second pull request: its files, as GitHub lists them at each head, and what each push
  // changed, from each head to the next and from the first push to the last (the merge's follow-up).
  const [opened, first, second, last] = AT_MERGE.heads;
  const atMerge = github.thread('acme/app', { headSha: opened, files: [ROLLBACK] });
  const filesAt = new Map<string, StoredFile[]>([[opened, [ROLLBACK]]]);
  let before: string = opened;
  for (const [after, { message, files }] of [first, second, last].map(
    (sha, i) => [sha, PUSHES[i]!] as const,
  )) {
    github.commit('acme/app', { sha: after, message, files });
    github.comparison('acme/app', `${before}...${after}`, { commits: [after], files });
    const kept = (filesAt.get(before) ?? []).filter((f) => !files.some((g) => g.filename === f.filename));
    filesAt.set(after, [...kept, ...files]);
    before = after;
  }
  github.comparison('acme/app', `${first}...${last}`, {
    commits: [second, last],
    files: PUSHES.slice(1).flatMap(({ files }) => files),
  });
  // The docs pull requests the service's jobs open (job n opens #n).
  for (let n = 0; n < 5; n++) github.thread('acme/docs');
  const described = JSON.stringify({
    apiUrl: github.apiUrl,
    serverUrl: github.serverUrl,
    token: DEMO_TOKEN,
    docsToken: DEMO_DOCS_TOKEN,
    docsRequest: DOCS_REQUEST,
    repository: 'acme/app',
    pullRequest: pr.number,
    heads: HEADS,
    request: { id: request.id, body: REQUEST },
    atMerge: { pullRequest: atMerge.number, heads: AT_MERGE.heads, merge: AT_MERGE.merge },
    docsRepository: `${github.serverUrl}/acme/docs`,
  });
  if (values['url-file']) {
    writeFileSync(`${values['url-file']}.tmp`, described);
    renameSync(`${values['url-file']}.tmp`, values['url-file']);
  }
  process.stdout.write(`GitHub emulator listening on ${github.apiUrl}\n`);
  let seen = 0;
  const flush = (): void => {
    for (const request of github.requests.slice(seen)) {
      const mutation = request.route === 'enableAutoMerge' ? ' (mutation)' : '';
      process.stderr.write(`${request.method} ${request.path}${mutation}\n`);
    }
    seen = github.requests.length;
    for (const violation of github.violations.splice(0))
      process.stderr.write(`contract violation: ${violation}\n`);
  };
  const log = setInterval(flush, 100);
  const stop = (): void => {
    clearInterval(log);
    github.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const stateFile = values['state-file'];
  if (values.marks) {
    const marks = createInterface({ input: process.stdin });
    marks.on('line', (line) => {
      flush();
      const [verb, number, sha] = line.split(' ');
      // mona's request on a docs pull request of acme/docs, made now: after the note that names
      // its thread (a request before it was answered that no thread took it).
      if (verb === 'ask' && number)
        github.addComment('acme/docs', Number(number), { login: 'mona', body: DOCS_REQUEST });
      if ((verb === 'push' || verb === 'merge') && number && sha && /^[0-9a-f]{40}$/.test(sha)) {
        const thread = github.get('acme/app', Number(number));
        if (verb === 'merge') {
          thread.merged = true;
          thread.mergeCommitSha = sha;
        } else {
          thread.headSha = sha;
          thread.files = filesAt.get(sha) ?? thread.files;
          thread.pullCommits.push({ sha, author: thread.opener, committer: thread.opener });
        }
      }
      if (stateFile) {
        const comments = github
          .get('acme/app', pr.number)
          .comments.map(({ id, login, reactions }) => ({ id, login, reactions }));
        const docs = [1, 2, 3, 4, 5].flatMap((n) =>
          github
            .get('acme/docs', n)
            .comments.map(({ id, login, reactions }) => ({ number: n, id, login, reactions })),
        );
        writeFileSync(
          `${stateFile}.tmp`,
          JSON.stringify({ repository: 'acme/app', number: pr.number, comments, docs }),
        );
        renameSync(`${stateFile}.tmp`, stateFile);
      }
      process.stderr.write(`${line}\n`);
    });
    // The end of stdin is the end of the caller: the emulator stops with it rather than outlive it.
    marks.once('close', stop);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `GitHub emulator failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
