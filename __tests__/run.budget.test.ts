// `budget`, played with run() in this process against both emulators: a thread at its budget
// sends nothing more, ends skipped with a success status, and its kept comment says how to go on;
// on a branch pushed to directly, the count of each docs pull request's job rides in the commit
// status, and a new job starts it again; a bad budget is a bad input before any request; no
// budget changes nothing.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  errors,
  gitHubEmulators,
  inputsFor,
  notices,
  runHere as play,
  threadStep,
  warnings,
} from '../__fixtures__/e2e.js';
import {
  pushTo,
  APP,
  commentEvent,
  DOCS,
  DOCS_TOKEN,
  gitHubEnv,
  pushEvent,
  sha,
  world,
} from '../__fixtures__/github-world.js';
import type { RunOptions } from '../__fixtures__/runner.js';
import { readNote } from '../src/github/note.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

const SPENT = 'The budget of 2 quota uses for this thread is spent (2 used): raise `budget`';

/** A pull request of acme/app whose docs live in acme/docs, with two pushes after its opening. */
async function threadWorld() {
  const gh = await github();
  const { pr, docsLink } = world(gh);
  const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
  for (const n of [2, 3]) {
    gh.commit(APP, { sha: sha(n), message: `Push ${n}`, files: [] });
    gh.comparison(APP, `${sha(n - 1)}...${sha(n)}`, {
      commits: [sha(n)],
      files: [
        { filename: `src/f${n}.ts`, status: 'modified', additions: 1, deletions: 0, patch: '@@ +1 @@' },
      ],
    });
  }
  const thread = threadStep(service, gh);
  const step = (event: RunOptions['event'], inputs: Record<string, string>, run: number): RunOptions =>
    thread(event, inputs, { GITHUB_RUN_ID: String(run) });
  const kept = () => pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
  return { gh, pr, service, step, kept };
}

describe('budget', () => {
  it('of 2 stops the third send: skipped, a success status, the comment says so, nothing sent', async () => {
    const { gh, pr, service, step, kept } = await threadWorld();
    const budget = { budget: '2' };
    const opened = await play(step(pushTo(pr, sha(1), 'opened'), budget, 101));
    expect(opened.outputs).toMatchObject({ mode: 'created', uses: '1' });
    const pushed = await play(step(pushTo(pr, sha(2)), budget, 102));
    expect(pushed.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(readNote(kept())?.uses).toBe(2);
    const sent = service.requests.filter((r) => r.route !== 'get').length;

    const third = await play(step(pushTo(pr, sha(3)), budget, 103));
    expect(third.code).toBe(0);
    expect(third.outputs).toEqual({
      status: 'skipped',
      mode: 'skipped',
      uses: '0',
      commentUrl: expect.stringContaining('#issuecomment-'),
    });
    expect(service.requests.filter((r) => r.route !== 'get')).toHaveLength(sent);
    expect(gh.statuses(APP, sha(3))).toEqual([
      expect.objectContaining({
        state: 'success',
        description: `Budget of 2 quota uses spent (raise budget to go on): job ${opened.outputs.jobId} · run 103`,
      }),
    ]);
    expect(kept()).toContain(SPENT);
    // Said under the thread's last result: the docs PR the thread has is still on the page.
    expect(kept()).toContain(pushed.outputs.prLink);
    expect(kept().indexOf(pushed.outputs.prLink ?? '')).toBeLessThan(kept().indexOf(SPENT));
    // The note stays: the thread's job and its total are still there for the next run.
    expect(readNote(kept())).toMatchObject({ uses: 2, job: opened.outputs.jobId });

    // A request at the budget is answered on the thread, and sends nothing either.
    const request = gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs also the README' });
    const asked = await play(step(commentEvent(pr.number, request.body, { id: request.id }), budget, 104));
    expect(asked.outputs).toMatchObject({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(service.requests.filter((r) => r.route !== 'get')).toHaveLength(sent);
    expect(kept()).toContain(SPENT);

    // A dry run at the budget says it would have been skipped.
    const dry = await play(step(pushTo(pr, sha(3)), { ...budget, dryRun: 'true' }, 105));
    expect(dry.outputs).toEqual({ mode: 'skipped', status: 'dry-run', uses: '0' });

    // Raised, the thread goes on.
    const raised = await play(step(pushTo(pr, sha(3)), { budget: '3' }, 106));
    expect(raised.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(readNote(kept())?.uses).toBe(3);
  });

  it('left empty sets no limit', async () => {
    const { pr, service, step } = await threadWorld();
    await play(step(pushTo(pr, sha(1), 'opened'), {}, 101));
    await play(step(pushTo(pr, sha(2)), {}, 102));
    const third = await play(step(pushTo(pr, sha(3)), { budget: '' }, 103));
    expect(third.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(service.count('create') + service.count('message')).toBe(3);
  });

  it('that is not a whole number of at least 1, or is set without a thread, is a bad input before any request', async () => {
    const { gh, pr, service, step } = await threadWorld();
    const bad: Record<string, string>[] = [
      { budget: '0' },
      { budget: '-1' },
      { budget: '1.5' },
      { budget: 'x' },
      { budget: '2', thread: 'false' },
    ];
    for (const inputs of bad) {
      const result = await play(step(pushTo(pr, sha(2)), inputs, 101));
      expect(result.code).toBe(1);
      expect(errors(result)).toEqual([expect.stringMatching(/^Input "budget"/)]);
      expect(result.outputs).toEqual({});
    }
    expect(service.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });
});

/**
 * main of acme/app, pushed to directly (no pull request holds its commits), whose docs live in
 * acme/docs: the service's jobs open docs pull requests #1, #2 … in the order they are created.
 * Push `n` is sha(n) on top of sha(n - 1), played as run 200 + n.
 */
async function branchWorld() {
  const gh = await github();
  const { docsPr } = world(gh);
  gh.thread(DOCS);
  const service = await emulator({ docsRepoUrl: `${gh.serverUrl}/${DOCS}` });
  const push = (n: number, inputs: Record<string, string> = { budget: '2' }) =>
    play({
      inputs: inputsFor(service, { thread: 'true', status: 'true', docsToken: DOCS_TOKEN, ...inputs }),
      env: { ...gitHubEnv(gh), GITHUB_RUN_ID: String(200 + n) },
      event: pushEvent(sha(n), { before: n === 1 ? '0'.repeat(40) : sha(n - 1) }),
    });
  const described = (n: number) => gh.statuses(APP, sha(n))[0]?.description;
  const sends = () => service.count('create') + service.count('message');
  const commented = () => gh.requests.filter((r) => /Comment$/.test(r.route) && r.method !== 'GET');
  return { gh, docsPr, push, described, sends, commented };
}

describe('budget on a branch pushed to directly', () => {
  it("of 2 stops the third send to the branch's job: skipped with a success status that carries the count on", async () => {
    const { gh, push, described, sends, commented } = await branchWorld();
    const first = await push(1);
    expect(first.outputs).toMatchObject({ mode: 'created', uses: '1' });
    const job = first.outputs.jobId ?? '';
    expect(described(1)).toBe(`Completed: job ${job} · run 201 · 1 use`);
    const second = await push(2);
    expect(second.outputs).toMatchObject({ mode: 'followed-up', jobId: job, uses: '1' });
    expect(described(2)).toBe(`Completed: job ${job} · run 202 · 2 uses`);
    expect(warnings(second)).toEqual([]);
    expect(sends()).toBe(2);

    const third = await push(3);
    expect(third.code).toBe(0);
    expect(third.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(sends()).toBe(2);
    expect(warnings(third)).toEqual([]);
    expect(notices(third)).toEqual([
      `Skipped: the budget of 2 quota uses for agent job ${job}, which keeps this branch's docs pull request, is spent (2 used): raise budget, or merge or close that docs pull request to start a new job. Nothing was sent; a branch has no thread comment to say so on.`,
    ]);
    expect(gh.statuses(APP, sha(3))).toEqual([
      expect.objectContaining({
        state: 'success',
        description: `Budget of 2 quota uses spent (raise budget to go on): job ${job} · run 203 · 2 uses`,
      }),
    ]);
    expect(commented()).toEqual([]);

    // The skip's status keeps the job and its count: the next push stops too, and raised, goes on.
    const fourth = await push(4);
    expect(fourth.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(sends()).toBe(2);
    gh.history(APP, [sha(4), sha(3), sha(2), sha(1)]);
    const raised = await push(5, { budget: '3' });
    expect(raised.outputs).toMatchObject({ mode: 'followed-up', jobId: job, uses: '1' });
    expect(described(5)).toBe(`Completed: job ${job} · run 205 · 3 uses`);
    // What changed is counted from the last push the job was told of, not from the skipped ones.
    const compared = gh.requests.filter((r) => r.route === 'compare').map((r) => r.path);
    expect(compared.at(-1)).toBe(`/repos/${APP}/compare/${sha(2)}...${sha(5)}`);
  });

  it("a 404 to GitHub's identity query fails the step with nothing sent: never a second job for the branch", async () => {
    const { gh, push, sends } = await branchWorld();
    const first = await push(1);
    expect(first.outputs).toMatchObject({ mode: 'created', uses: '1' });
    gh.fail('graphql', { status: 404, message: 'Not Found' });
    const second = await push(2);
    expect(second.code).toBe(1);
    expect(second.outputs.uses ?? '0').toBe('0');
    expect(errors(second)).toEqual([
      expect.stringMatching(
        /learn which login githubToken acts as .*\(404 "Not Found"\): GitHub has no GraphQL API where the action asked, which is GITHUB_API_URL's \/graphql \(\/api\/graphql on GitHub Enterprise Server\)\. Check GITHUB_API_URL, and any proxy between the runner and GitHub\. Nothing was sent to the service/,
      ),
    ]);
    expect(sends()).toBe(1);
  });

  it('starts the count again with the new job once the docs pull request is merged', async () => {
    const { gh, docsPr, push, described, sends } = await branchWorld();
    const first = await push(1);
    await push(2);
    expect(described(2)).toBe(`Completed: job ${first.outputs.jobId} · run 202 · 2 uses`);
    docsPr.merged = true;
    docsPr.state = 'closed';

    const fresh = await push(3);
    expect(fresh.outputs).toMatchObject({
      mode: 'created',
      uses: '1',
      prLink: `${gh.serverUrl}/${DOCS}/pull/2`,
    });
    const job = fresh.outputs.jobId ?? '';
    expect(job).not.toBe(first.outputs.jobId);
    expect(described(3)).toBe(`Completed: job ${job} · run 203 · 1 use`);
    const next = await push(4);
    expect(next.outputs).toMatchObject({ mode: 'followed-up', jobId: job });
    expect(described(4)).toBe(`Completed: job ${job} · run 204 · 2 uses`);
    const stopped = await push(5);
    expect(stopped.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(sends()).toBe(4);
  });

  it('counts from the first run with budget when the status holds no count (written without it), and says so', async () => {
    const { push, described, sends } = await branchWorld();
    const first = await push(1, {});
    const job = first.outputs.jobId ?? '';
    expect(described(1)).toBe(`Completed: job ${job} · run 201`);
    const counted = await push(2, { budget: '1' });
    expect(counted.outputs).toMatchObject({ mode: 'followed-up', jobId: job, uses: '1' });
    expect(warnings(counted)).toEqual([
      `The quota uses agent job ${job} of the branch has spent are not known (its commit status holds no count: written without budget, or by an earlier version), so budget counts them from this run on.`,
    ]);
    expect(described(2)).toBe(`Completed: job ${job} · run 202 · 1 use`);
    const stopped = await push(3, { budget: '1' });
    expect(stopped.outputs).toMatchObject({ status: 'skipped', uses: '0' });
    expect(warnings(stopped)).toEqual([]);
    expect(sends()).toBe(2);
  });
});
