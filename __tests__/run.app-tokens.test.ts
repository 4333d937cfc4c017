// GitHub App installation tokens are now about 520 characters (`ghs_` and base62): one works as
// githubToken and another as docsToken — through input validation, whole in the Authorization
// header of every request to GitHub, each to its own repository — and both are masked before
// anything is printed, even where GitHub's own reply quotes one. run() in this process, with the
// real @actions/core, against both emulators over real sockets; `run` checks that no piece of
// either token, raw or encoded, shows anywhere the runner keeps.
import { describe, expect, it } from '@jest/globals';
import { emulators, gitHubEmulators, inputsFor, runHere as run, warnings } from '../__fixtures__/e2e.js';
import { pushTo, APP, BOT, DOCS, gitHubEnv } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** An installation token of today's shape: `ghs_` and 516 base62 characters, 520 in all. */
function appToken(seed: number): string {
  let state = seed;
  let token = 'ghs_';
  while (token.length < 520) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    token += BASE62[(state >>> 16) % 62];
  }
  return token;
}
const APP_TOKEN = appToken(7);
const DOCS_APP_TOKEN = appToken(11);

describe('GitHub App installation tokens of 520 characters', () => {
  it('work as githubToken and docsToken, each whole and to its own repository, and are masked', async () => {
    expect([APP_TOKEN.length, DOCS_APP_TOKEN.length]).toEqual([520, 520]);
    const gh = await github();
    gh.grant(APP_TOKEN, { login: BOT, type: 'Bot', read: [APP], write: [APP] });
    gh.grant(DOCS_APP_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: [DOCS], write: [DOCS] });
    const pr = gh.thread(APP);
    const docsPr = gh.thread(DOCS);
    const docsLink = `${gh.serverUrl}/${DOCS}/pull/${docsPr.number}`;
    // GitHub's reply quotes the token (as a proxy or a gateway in front of it may).
    gh.fail('requestReviewers', {
      status: 422,
      message: `Reviews may not be requested by ${DOCS_APP_TOKEN}`,
    });
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const result = await run({
      inputs: inputsFor(service, {
        comment: 'true',
        status: 'true',
        labels: 'docs',
        reviewers: 'octocat',
        autoMerge: 'squash',
        githubToken: APP_TOKEN,
        docsToken: DOCS_APP_TOKEN,
      }),
      env: gitHubEnv(gh),
      event: pushTo(pr, 'c'.repeat(40), 'opened'),
    });
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ status: 'completed', prLink: docsLink });
    expect(pr.comments).toHaveLength(1);
    expect(docsPr.labels).toEqual(['docs']);
    expect(docsPr.autoMerge).toEqual({ method: 'SQUASH', by: 'docs-app[bot]' });
    expect(warnings(result)).toEqual([expect.stringContaining('Reviews may not be requested by ***')]);
    // Each request carried one token whole: the workflow's to acme/app, the app's to acme/docs.
    const used = new Map<string, Set<string>>();
    for (const request of gh.requests) {
      const repository = request.path.includes(`/repos/${DOCS}/`) || request.route === 'enableAutoMerge';
      const key = request.token === APP_TOKEN ? 'app' : request.token === DOCS_APP_TOKEN ? 'docs' : 'other';
      used.set(key, (used.get(key) ?? new Set()).add(repository ? DOCS : APP));
    }
    expect(Object.fromEntries([...used].map(([k, v]) => [k, [...v]]))).toEqual({ app: [APP], docs: [DOCS] });
    expect(gh.count('createStatus')).toBe(2);
    // Registered with the runner's mask before anything else is printed.
    const lines = result.stdout.split('\n');
    const masks = lines.flatMap((line, i) =>
      line.startsWith('::add-mask::') ? [[line.slice(12), i] as const] : [],
    );
    const firstOther = lines.findIndex((line) => line.trim() && !line.startsWith('::add-mask::'));
    for (const token of [APP_TOKEN, DOCS_APP_TOKEN]) {
      const at = masks.find(([masked]) => masked === token)?.[1];
      expect(at).toBeDefined();
      expect(at).toBeLessThan(firstOther);
    }
  });
});
