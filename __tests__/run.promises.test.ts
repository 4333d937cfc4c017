// A thread keeps its promise when things go wrong, played with run() in this process against both
// emulators: a refused follow-up gives one new job that the thread then follows; an answer that
// leaves delivery unknown gives none; a follow-up refused past its timeout is delivered by the
// re-run, not reported green; a bare `/docs` keeps the thread; a re-run of an older run never moves
// the thread's head back; one 502 forks nothing; a burst of requests queued as the README's
// workflow queues them all reaches the agent; a branch whose middle pushes were cancelled keeps
// one job and hears of every change.
import { describe, expect, it } from '@jest/globals';
import type { StoredComment } from '../emulators/github.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  emulators,
  gitHubEmulators,
  notices,
  runHere as play,
  threadStep,
  warnings,
} from '../__fixtures__/e2e.js';
import { pushTo, APP, commentEvent, pushEvent, sha, world } from '../__fixtures__/github-world.js';
import { ROOT } from '../__fixtures__/runner.js';
import type { EmulatorOptions } from '../emulators/server.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();
/** The messages the service received, as the prompts they carried. */
const messages = (service: Awaited<ReturnType<typeof emulator>>) =>
  service.requests.filter((r) => r.route === 'message').map((r) => (r.json as { prompt: string }).prompt);

describe('a thread keeps its promise', () => {
  /** A pull request of acme/app whose docs live in acme/docs, and a service that ends jobs with a docs PR. */
  async function threadWorld(options: EmulatorOptions = {}) {
    const gh = await github();
    const { pr, docsPr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink }, ...options });
    const step = threadStep(service, gh);
    return { gh, pr, docsPr, docsLink, service, step };
  }

  it("a 400 to the thread's follow-up gives exactly one new job, and the next push follows that job up", async () => {
    const { pr, service, step } = await threadWorld({ activePolls: 1, finishedJobMessages: { status: 400 } });
    const first = await play(step(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '101' }));
    expect(first.outputs.mode).toBe('created');
    // The first job completed; this service takes no message for a finished job.
    const second = await play(step(pushTo(pr, sha(2)), { wait: 'false' }, { GITHUB_RUN_ID: '102' }));
    expect(second.code).toBe(0);
    expect(second.outputs.mode).toBe('created');
    expect(second.outputs.jobId).not.toBe(first.outputs.jobId);
    expect(second.stdout).toContain(
      `The service no longer takes messages for agent job ${first.outputs.jobId}`,
    );
    expect(pr.comments.at(-1)?.body).toContain(
      `The service no longer takes messages for job \`${first.outputs.jobId}\`; job \`${second.outputs.jobId}\` continues the thread.`,
    );
    // The new job is still active: the next push is its follow-up.
    const third = await play(step(pushTo(pr, sha(3)), {}, { GITHUB_RUN_ID: '103' }));
    expect(third.outputs).toMatchObject({ mode: 'followed-up', jobId: second.outputs.jobId });
    expect(service.count('create')).toBe(2);
  });

  it('a 500 to a follow-up gives no create: delivery is unknown, and the step says so', async () => {
    const { gh, pr, service, step } = await threadWorld();
    const first = await play(step(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '201' }));
    service.script('message', { status: 500, json: { error: 'Internal error' } });
    const second = await play(step(pushTo(pr, sha(2)), {}, { GITHUB_RUN_ID: '202' }));
    expect(second.code).toBe(1);
    expect(second.outputs).toMatchObject({
      mode: 'followed-up',
      status: 'not-started',
      jobId: first.outputs.jobId,
    });
    expect(service.count('create')).toBe(1);
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'error',
      description: `Stopped: follow-up to job ${first.outputs.jobId} not confirmed; a re-run sends it again · run 202`,
    });
  });

  it('a follow-up refused with 429 past its timeout is delivered by the re-run, not reported green', async () => {
    const { gh, pr, service, step } = await threadWorld();
    const first = await play(step(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '301' }));
    service.script('message', {
      status: 429,
      headers: { 'retry-after': '3600' },
      json: { error: 'Rate limit' },
    });
    const refused = await play(step(pushTo(pr, sha(2)), {}, { GITHUB_RUN_ID: '302' }));
    expect(refused.code).toBe(1);
    // The status says the follow-up to the thread's job was not confirmed, in words no later run
    // reads as naming a job for run 302.
    expect(gh.statuses(APP, sha(2))[0]?.description).toBe(
      `Stopped: follow-up to job ${first.outputs.jobId} not confirmed; a re-run sends it again · run 302`,
    );
    const rerun = await play(step(pushTo(pr, sha(2)), {}, { GITHUB_RUN_ID: '302', GITHUB_RUN_ATTEMPT: '2' }));
    expect(rerun.code).toBe(0);
    expect(rerun.outputs).toMatchObject({ mode: 'followed-up', jobId: first.outputs.jobId });
    expect(messages(service)).toHaveLength(2);
    expect(service.count('create')).toBe(1);
  });

  it('a bare /docs between two requests leaves one job', async () => {
    const { gh, pr, service, step } = await threadWorld();
    const ask = async (body: string, runId: string) => {
      const comment = gh.addComment(APP, pr.number, { login: 'octocat', body });
      return play(
        step(commentEvent(pr.number, body, { id: comment.id }), { prompt: '' }, { GITHUB_RUN_ID: runId }),
      );
    };
    const first = await ask('/docs document the flag', '401');
    const bare = await ask('/docs', '402');
    expect(bare.outputs.status).toBe('skipped');
    const again = await ask('/docs and its default', '403');
    expect(again.outputs).toMatchObject({ mode: 'followed-up', jobId: first.outputs.jobId });
    expect(service.count('create')).toBe(1);
  });

  it("after a re-run of an older run, the next push's context starts at the newest head the job saw", async () => {
    const { gh, pr, service, step } = await threadWorld();
    for (const n of [2, 3]) gh.commit(APP, { sha: sha(n), message: `Change ${n}`, files: [] });
    gh.comparison(APP, `${sha(2)}...${sha(3)}`, {
      commits: [sha(3)],
      files: [{ filename: 'src/three.ts', status: 'added', additions: 3, deletions: 0, patch: '@@ +1 @@' }],
    });
    await play(step(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '501' }));
    await play(step(pushTo(pr, sha(2)), {}, { GITHUB_RUN_ID: '502' }));
    const rerun = await play(
      step(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '501', GITHUB_RUN_ATTEMPT: '2' }),
    );
    expect(rerun.outputs.mode).toBe('resumed');
    const next = await play(step(pushTo(pr, sha(3)), {}, { GITHUB_RUN_ID: '503' }));
    expect(next.outputs.mode).toBe('followed-up');
    expect(messages(service).at(-1)).toContain(
      'what changed since the docs job last saw it (2222222…3333333)',
    );
    expect(messages(service).at(-1)).toContain('src/three.ts');
  });

  it("one 502 on the thread's read of its job gives no second job", async () => {
    const { pr, service, step } = await threadWorld();
    const first = await play(step(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '601' }));
    service.script('get', { status: 502, json: { error: 'Bad gateway' } });
    const second = await play(step(pushTo(pr, sha(2)), {}, { GITHUB_RUN_ID: '602' }));
    expect(second.outputs).toMatchObject({ mode: 'followed-up', jobId: first.outputs.jobId });
    expect(warnings(second)[0]).toMatch(
      /^Could not read agent job \w+ of the thread \(HTTP 502 "Bad gateway"\); trying again\.$/,
    );
    expect(service.count('create')).toBe(1);
  });

  it("a burst of five /docs requests, queued as the README's workflow queues them, costs two uses and every one is answered", async () => {
    // The recommended workflow keeps one group a thread with GitHub's default queue: one run
    // pending a group, the others cancelled before they start.
    const recipe = readFileSync(join(ROOT, 'docs', 'examples.md'), 'utf8');
    const workflow = [...recipe.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
      .map((m) => parse(m[1] ?? '') as { name?: string; jobs?: Record<string, { concurrency?: unknown }> })
      .find((w) => w.name === 'Docs that follow the pull request');
    const concurrency = workflow?.jobs?.docs?.concurrency as Record<string, unknown> | undefined;
    expect(concurrency?.group).toBeDefined();
    expect(concurrency?.queue).toBeUndefined();

    const { gh, pr, service, step } = await threadWorld();
    const asks = ['the flag', 'its default', 'the config file', 'the FAQ', 'the changelog'];
    const comments: StoredComment[] = [];
    const ask = (text: string) =>
      comments.push(gh.addComment(APP, pr.number, { login: 'octocat', body: `/docs document ${text}` }));
    const runOf = (i: number) => {
      const comment = comments[i];
      if (!comment) throw new Error(`no comment ${i}`);
      return play(
        step(
          commentEvent(pr.number, comment.body, { id: comment.id }),
          { prompt: '' },
          { GITHUB_RUN_ID: `70${i}` },
        ),
      );
    };
    ask(asks[0] ?? '');
    expect((await runOf(0)).outputs).toMatchObject({ mode: 'created', uses: '1' });
    // The four that came while it ran queued: GitHub cancelled all but the newest pending run.
    for (const text of asks.slice(1)) ask(text);
    const last = await runOf(4);
    expect(last.code).toBe(0);
    expect(last.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(service.count('create') + service.count('message')).toBe(2);
    const sent = messages(service).at(-1) ?? '';
    for (const ask of asks.slice(1)) expect(sent).toContain(`document ${ask}`);
    for (const comment of comments) expect(comment.reactions).toEqual(['eyes']);
  });

  it('a branch whose middle pushes were cancelled keeps one job, and tells it every change since its last head', async () => {
    const { gh, service, step } = await threadWorld();
    // The branch as the first push's run finds it; the three later pushes come while it runs.
    gh.history(APP, [sha(1)]);
    for (const n of [1, 4]) gh.commit(APP, { sha: sha(n), message: `Push ${n}`, files: [] });
    gh.comparison(APP, `${sha(1)}...${sha(4)}`, {
      commits: [sha(4)],
      files: ['two', 'three', 'four'].map((name) => ({
        filename: `src/${name}.ts`,
        status: 'added',
        additions: 1,
        deletions: 0,
        patch: '@@ +1 @@',
      })),
    });
    const first = await play(
      step(pushEvent(sha(1), { before: '0'.repeat(40) }), { context: 'none' }, { GITHUB_RUN_ID: '801' }),
    );
    expect(first.outputs.mode).toBe('created');
    gh.history(APP, [sha(4), sha(3), sha(2), sha(1)]);
    // The runs of the pushes of sha(2) and sha(3) were cancelled while pending: no status there.
    const last = await play(step(pushEvent(sha(4), { before: sha(3) }), {}, { GITHUB_RUN_ID: '804' }));
    expect(last.outputs).toMatchObject({ mode: 'followed-up', jobId: first.outputs.jobId });
    expect(notices(last)).toEqual([expect.stringContaining('No comment posted')]);
    for (const name of ['two', 'three', 'four']) expect(messages(service).at(-1)).toContain(`src/${name}.ts`);
    expect(service.count('create')).toBe(1);
  });
});
