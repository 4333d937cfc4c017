// A docs job that follows the conversation, with run() in this process against both emulators
// over real sockets: one job per pull request across pushes while its docs pull request is open,
// a new one after it is merged; one rolling job for a branch pushed to directly; a re-run that
// resumes the job its first attempt started; the commit status on the pull request's head. The
// rules are tested one by one in continuity.test.ts and github-thread.test.ts.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  errors,
  gitHubEmulators,
  inputsFor,
  runHere as run,
  warnings,
} from '../__fixtures__/e2e.js';
import {
  pushTo,
  APP,
  commentEvent,
  DOCS_TOKEN,
  gitHubEnv,
  pullRequestAt,
  changedFile,
  pushEvent,
  sha,
  world,
} from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('a pull request thread', () => {
  it('one job across pushes while the docs PR is open (follow-ups with what changed), a new one after the merge', async () => {
    const gh = await github();
    const { pr, docsPr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const options = (event: ReturnType<typeof pullRequestAt> | ReturnType<typeof commentEvent>) => ({
      inputs: inputsFor(service, {
        thread: 'true',
        status: 'true',
        context: 'auto',
        trigger: '/docs',
        docsToken: DOCS_TOKEN,
      }),
      env: gitHubEnv(gh),
      event,
    });
    gh.commit(APP, { sha: sha(2), message: 'Add the --dry-run flag', files: [] });
    gh.comparison(APP, `${sha(1)}...${sha(2)}`, {
      commits: [sha(2)],
      files: [{ filename: 'src/cli.ts', status: 'modified', additions: 4, deletions: 0, patch: '@@ +1 @@' }],
    });

    const opened = await run(options(pushTo(pr, sha(1), 'opened')));
    expect(opened.code).toBe(0);
    expect(opened.outputs.mode).toBe('created');
    const jobId = opened.outputs.jobId;

    const pushed = await run(options(pushTo(pr, sha(2))));
    expect(pushed.code).toBe(0);
    expect(warnings(pushed)).toEqual([]);
    expect(pushed.outputs).toMatchObject({ mode: 'followed-up', jobId, prLink: docsLink });
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(1);
    const followUp = service.requests.find((r) => r.route === 'message')?.json as { prompt: string };
    expect(followUp.prompt).toContain('what changed since the docs job last saw it (1111111…2222222)');
    expect(followUp.prompt).toContain('src/cli.ts');

    const request = gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs also the README' });
    const asked = await run(options(commentEvent(pr.number, request.body, { id: request.id })));
    expect(asked.outputs).toMatchObject({ mode: 'followed-up', jobId });
    expect(request.reactions).toEqual(['eyes']);
    expect(pr.comments.filter((c) => c.body.startsWith('<!-- agent-job-action:'))).toHaveLength(1);

    docsPr.merged = true;
    const afterMerge = await run(options(pushTo(pr, sha(3))));
    expect(afterMerge.code).toBe(0);
    expect(afterMerge.outputs.mode).toBe('created');
    expect(afterMerge.outputs.jobId).not.toBe(jobId);
    expect(service.count('create')).toBe(2);
    expect(service.count('message')).toBe(2);
  });

  it('sets the commit status on the pull request head: pending, then success linking the docs PR', async () => {
    const gh = await github();
    const { pr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const result = await run({
      inputs: inputsFor(service, { status: 'true' }),
      env: gitHubEnv(gh),
      event: pushTo(pr, sha(7), 'opened'),
    });
    expect(result.code).toBe(0);
    expect(gh.statuses(APP, sha(7)).map((s) => [s.state, s.target_url])).toEqual([
      ['success', docsLink],
      ['pending', `${gh.serverUrl}/${APP}/actions/runs/4242`],
    ]);
  });
});

describe('a thread whose memory GitHub cannot give', () => {
  it('fails with nothing sent, and says no job started, rather than starting a second one', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator();
    const down = { status: 502, message: 'Bad Gateway' };
    gh.fail('listComments', down, down, down, down);
    const result = await run({
      inputs: inputsFor(service, { thread: 'true', docsToken: DOCS_TOKEN }),
      env: gitHubEnv(gh),
      event: pushTo(pr, sha(4), 'opened'),
    });
    expect(result.code).toBe(1);
    expect(service.requests).toEqual([]);
    expect(result.outputs.status).toBe('not-started');
    expect(errors(result)).toEqual([expect.stringContaining('Nothing was sent to the service')]);
  });
});

describe('the merge', () => {
  it("a push of the pull request's merge commit is told to the thread's job: what changed up to the pull request's own head, never through the merge commit", async () => {
    const gh = await github();
    const { docsLink } = world(gh);
    const merged = gh.thread(APP, { mergeCommitSha: sha(9), headSha: sha(5) });
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const inputs = inputsFor(service, { thread: 'true', docsToken: DOCS_TOKEN, context: 'auto' });
    const opened = await run({
      inputs,
      env: gitHubEnv(gh),
      event: pullRequestAt(merged.number, sha(5), 'opened'),
    });
    // A last push whose run never came (a push by the workflow's token), then a squash merge: the
    // comparison up to the merge commit holds another pull request's change too.
    merged.headSha = sha(6);
    gh.comparison(APP, `${sha(5)}...${sha(6)}`, { commits: [], files: [changedFile('src/last-push.ts')] });
    gh.comparison(APP, `${sha(5)}...${sha(9)}`, {
      commits: [],
      files: [changedFile('src/last-push.ts'), changedFile('src/other-pull-request.ts')],
    });
    const merge = await run({ inputs, env: gitHubEnv(gh), event: pushEvent(sha(9), { before: sha(4) }) });
    expect(merge.code).toBe(0);
    expect(merge.outputs).toMatchObject({ mode: 'followed-up', jobId: opened.outputs.jobId });
    expect(service.count('create')).toBe(1);
    const told = service.requests.find((r) => r.route === 'message')?.json as { prompt: string };
    expect(told.prompt).toContain('src/last-push.ts');
    expect(told.prompt).not.toContain('src/other-pull-request.ts');
  });

  it('a merge with nothing new since the job last looked sends nothing, and leaves a success status naming the job', async () => {
    const gh = await github();
    const { docsLink } = world(gh);
    const merged = gh.thread(APP, { mergeCommitSha: sha(9), headSha: sha(6) });
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const inputs = inputsFor(service, { thread: 'true', status: 'true', docsToken: DOCS_TOKEN });
    const opened = await run({
      inputs,
      env: gitHubEnv(gh),
      event: pullRequestAt(merged.number, sha(6), 'opened'),
    });
    const merge = await run({ inputs, env: gitHubEnv(gh), event: pushEvent(sha(9), { before: sha(5) }) });
    expect(merge.code).toBe(0);
    expect(merge.outputs).toMatchObject({ mode: 'skipped', status: 'skipped', uses: '0' });
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(0);
    expect(gh.statuses(APP, sha(9))[0]).toMatchObject({
      state: 'success',
      description: expect.stringContaining(
        `Nothing new since the job last looked: job ${opened.outputs.jobId}`,
      ),
    });
  });
});

describe('a branch pushed to directly', () => {
  it('two pushes to main with thread and status: one job and one follow-up', async () => {
    const gh = await github();
    const { docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const options = (after: string, before: string) => ({
      inputs: inputsFor(service, { thread: 'true', status: 'true', docsToken: DOCS_TOKEN }),
      env: gitHubEnv(gh),
      event: pushEvent(after, { before }),
    });
    const first = await run(options(sha(4), '0'.repeat(40)));
    expect(first.outputs.mode).toBe('created');
    const second = await run(options(sha(5), sha(4)));
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ mode: 'followed-up', jobId: first.outputs.jobId });
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(1);
    expect(gh.statuses(APP, sha(5))[0]?.description).toBe(`Completed: job ${first.outputs.jobId} · run 4242`);
  });
});

describe('a thread on pushes without status', () => {
  it('a push to a branch no pull request contains is refused, naming status, before anything is sent or written', async () => {
    const gh = await github();
    world(gh);
    const service = await emulator();
    const result = await run({
      inputs: inputsFor(service, { thread: 'true', docsToken: DOCS_TOKEN }),
      env: gitHubEnv(gh),
      event: pushEvent(sha(5), { before: sha(4), ref: 'refs/heads/release' }),
    });
    expect(result.code).toBe(1);
    expect(errors(result)).toEqual([
      'Input "status" is false, but thread is true and this push to the branch "release" is in no pull request: a branch\'s thread keeps its job in this step\'s commit statuses, so without status every push to it would start a new job. Set status: true (with statuses: write) to keep one job for the branch, or run the thread\'s step only on pull request events. Nothing was sent.',
    ]);
    expect(result.outputs).toMatchObject({ status: 'not-started', uses: '0' });
    expect(service.requests).toEqual([]);
    // GitHub was only read: which pull request holds the commit, and the branch's tip.
    expect(gh.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it("a push to a pull request's branch keeps that pull request's thread in its comment, as before", async () => {
    const gh = await github();
    const { docsLink } = world(gh);
    const pr = gh.thread(APP, { headSha: sha(5), headRef: 'topic' });
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const options = (after: string, before: string) => ({
      inputs: inputsFor(service, { thread: 'true', docsToken: DOCS_TOKEN }),
      env: gitHubEnv(gh),
      event: pushEvent(after, { before, ref: 'refs/heads/topic' }),
    });
    const first = await run(options(sha(5), sha(4)));
    expect(first.code).toBe(0);
    expect(first.outputs.mode).toBe('created');
    expect(pr.comments.filter((c) => c.body.startsWith('<!-- agent-job-action:'))).toHaveLength(1);
  });
});

describe('a re-run', () => {
  it("of a timed-out attempt creates nothing and reports the first attempt's job", async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator({ activePolls: 3 });
    const options = (attempt: string, timeout: string) => ({
      inputs: inputsFor(service, { comment: 'true', status: 'true', timeout }),
      env: { ...gitHubEnv(gh), GITHUB_RUN_ATTEMPT: attempt },
      event: pullRequestAt(pr.number, sha(8), 'opened'),
    });
    const first = await run(options('1', '2s'));
    expect(first.code).toBe(1);
    expect(first.outputs.status).toBe('active');
    const again = await run(options('2', '40s'));
    expect(again.code).toBe(0);
    expect(again.outputs).toMatchObject({ mode: 'resumed', jobId: first.outputs.jobId, status: 'completed' });
    expect(service.count('create')).toBe(1);
    expect(service.count('message')).toBe(0);
    expect(again.stdout).toContain(`Attempt 2 of this run: resuming agent job ${first.outputs.jobId}`);
  });
});
