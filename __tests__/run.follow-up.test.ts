// `followUp` and the runs that find nothing to send, played with run() in this process against
// both emulators: under at-merge a pull request's life costs two uses (the opening, the merge);
// under on-request only requests send; a push with nothing new, or overtaken by a newer push to its
// pull request, sends nothing; each skip leaves a success status naming the thread's job.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  errors,
  gitHubEmulators,
  runHere as play,
  threadStep,
  warnings,
} from '../__fixtures__/e2e.js';
import {
  APP,
  changedFile,
  commentEvent,
  pullRequestAt,
  pushEvent,
  pushTo,
  reviewCommentEvent,
  sha,
  world,
} from '../__fixtures__/github-world.js';
import type { RunOptions } from '../__fixtures__/runner.js';
import { readNote } from '../src/github/note.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

/** A pull request of acme/app whose docs live in acme/docs; each push n changes src/fn.ts. */
async function threadWorld() {
  const gh = await github();
  const { pr, docsLink } = world(gh);
  const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
  const thread = threadStep(service, gh);
  const step = (event: RunOptions['event'], inputs: Record<string, string>, run: number): RunOptions =>
    thread(event, inputs, { GITHUB_RUN_ID: String(run) });
  /** What GitHub compares from `from` to `to`: one file a push in between. */
  const compares = (from: number, to: number) => {
    const pushes = Array.from({ length: to - from }, (_, i) => from + i + 1);
    gh.comparison(APP, `${sha(from)}...${sha(to)}`, {
      commits: [],
      files: pushes.map((n) => changedFile(`src/f${n}.ts`)),
    });
  };
  const kept = () => pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
  const sends = () => service.count('create') + service.count('message');
  const lastMessage = () =>
    (service.requests.filter((r) => r.route === 'message').at(-1)?.json as { prompt?: string } | undefined)
      ?.prompt ?? '';
  /** The pull request's `closed` event, merged, at its head. */
  const merged = (head: string) => {
    pr.merged = true;
    const event = pullRequestAt(pr.number, head, 'closed');
    return {
      ...event,
      payload: { ...event.payload, pull_request: { ...event.payload.pull_request, merged: true } },
    };
  };
  return { gh, pr, service, step, compares, kept, sends, lastMessage, merged };
}

describe('followUp: at-merge', () => {
  it("costs two uses over a pull request's life: the opening creates, three pushes send nothing (success statuses naming the job), the merge sends every push's files", async () => {
    const { gh, pr, step, compares, kept, sends, lastMessage, merged } = await threadWorld();
    const atMerge = { followUp: 'at-merge' };
    const opened = await play(step(pushTo(pr, sha(1), 'opened'), atMerge, 101));
    expect(opened.outputs).toMatchObject({ mode: 'created', uses: '1' });
    const jobId = opened.outputs.jobId ?? '';

    for (const n of [2, 3, 4]) {
      const pushed = await play(step(pushTo(pr, sha(n)), atMerge, 100 + n));
      expect(pushed.code).toBe(0);
      expect(pushed.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
      expect(pushed.stdout).toContain(
        `::notice::Skipped: followUp is at-merge, so this sends nothing; job ${jobId} gets everything since it last looked when the pull request merges`,
      );
      expect(gh.statuses(APP, sha(n))).toEqual([
        expect.objectContaining({
          state: 'success',
          description: `Docs follow at the merge: job ${jobId} · run ${100 + n}`,
        }),
      ]);
    }
    expect(sends()).toBe(1);

    compares(1, 4);
    const merge = await play(step(merged(sha(4)), atMerge, 105));
    expect(merge.code).toBe(0);
    expect(merge.outputs).toMatchObject({ mode: 'followed-up', jobId, uses: '1' });
    expect(sends()).toBe(2);
    for (const n of [2, 3, 4]) expect(lastMessage()).toContain(`src/f${n}.ts`);
    expect(readNote(kept())).toMatchObject({ job: jobId, uses: 2, head: sha(4) });
  });

  it('sends a request as it comes, with what changed since the job last looked; the merge then sends only what came after', async () => {
    const { pr, gh, step, compares, sends, lastMessage, merged } = await threadWorld();
    const atMerge = { followUp: 'at-merge' };
    const opened = await play(step(pushTo(pr, sha(1), 'opened'), atMerge, 201));
    await play(step(pushTo(pr, sha(2)), atMerge, 202));
    compares(1, 2);
    const request = gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs the new flag too' });
    const asked = await play(step(commentEvent(pr.number, request.body, { id: request.id }), atMerge, 203));
    expect(asked.outputs).toMatchObject({ mode: 'followed-up', jobId: opened.outputs.jobId, uses: '1' });
    expect(lastMessage()).toContain('the new flag too');
    expect(lastMessage()).toContain('src/f2.ts');

    await play(step(pushTo(pr, sha(3)), atMerge, 204));
    compares(2, 3);
    const merge = await play(step(merged(sha(3)), atMerge, 205));
    expect(merge.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(lastMessage()).toContain('src/f3.ts');
    expect(lastMessage()).not.toContain('src/f2.ts');
    expect(sends()).toBe(3);
  });

  it('a request made as a review comment carries the held pushes too, and the merge after it is still told', async () => {
    const { gh, pr, step, compares, sends, lastMessage, merged } = await threadWorld();
    const atMerge = { followUp: 'at-merge' };
    await play(step(pushTo(pr, sha(1), 'opened'), atMerge, 261));
    await play(step(pushTo(pr, sha(2)), atMerge, 262));
    compares(1, 2);
    const review = gh.addReviewComment(APP, pr.number, { login: 'octocat', body: '/docs the flag' });
    const asked = await play(step(reviewCommentEvent(gh.serverUrl, pr.number, review, sha(2)), atMerge, 263));
    expect(asked.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(lastMessage()).toContain('src/f2.ts');
    // Nothing changed since the request, but the merge is news: its prompt says so.
    const merge = await play(step(merged(sha(2)), atMerge, 264));
    expect(merge.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(sends()).toBe(3);
  });

  it('a pull request merged with no push since it was opened: the merge prompt still reaches the job', async () => {
    const { pr, step, sends, lastMessage, merged } = await threadWorld();
    const atMerge = { followUp: 'at-merge' };
    await play(step(pushTo(pr, sha(1), 'opened'), atMerge, 271));
    const merge = await play(
      step(merged(sha(1)), { ...atMerge, prompt: 'The pull request was merged.' }, 272),
    );
    expect(merge.code).toBe(0);
    expect(merge.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(lastMessage()).toContain('The pull request was merged.');
    expect(sends()).toBe(2);
  });

  // A workflow that hears both the pull request's `closed` (merged) and the push of its merge
  // commit to main: whichever run comes first tells the job, the other finds it told.
  it.each([
    ['the closed event, then the push of the merge commit', 'closed', 'push'],
    ['the push of the merge commit, then the closed event', 'push', 'closed'],
  ] as const)('one merge heard twice (%s) is sent once', async (_name, first, second) => {
    const { gh, step, compares, sends, lastMessage } = await threadWorld();
    // GitHub names the merge commit among the commits it lists the pull request under.
    const pr = gh.thread(APP, { mergeCommitSha: sha(9), headSha: sha(1) });
    const atMerge = { followUp: 'at-merge' };
    const opened = await play(step(pullRequestAt(pr.number, sha(1), 'opened'), atMerge, 281));
    const jobId = opened.outputs.jobId ?? '';
    await play(step(pushTo(pr, sha(2)), atMerge, 282));
    compares(1, 2);
    pr.merged = true;
    const closed = pullRequestAt(pr.number, sha(2), 'closed');
    const events = {
      closed: {
        event: {
          ...closed,
          payload: { ...closed.payload, pull_request: { ...closed.payload.pull_request, merged: true } },
        },
        commit: sha(2),
      },
      push: { event: pushEvent(sha(9), { before: sha(8) }), commit: sha(9) },
    };
    const told = await play(step(events[first].event, atMerge, 283));
    expect(told.outputs).toMatchObject({ mode: 'followed-up', jobId, uses: '1' });
    expect(lastMessage()).toContain('src/f2.ts');
    expect(sends()).toBe(2);

    const again = await play(step(events[second].event, atMerge, 284));
    expect(again.code).toBe(0);
    expect(warnings(again)).toEqual([]);
    expect(again.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(again.stdout).toContain(
      `::notice::Skipped: run 283 already told job ${jobId} of this merge, so nothing was sent.`,
    );
    expect(gh.statuses(APP, events[second].commit)[0]).toMatchObject({
      state: 'success',
      description: `Merge already sent: job ${jobId} · run 284`,
    });
    expect(sends()).toBe(2);
    const kept = pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
    expect(readNote(kept)).toMatchObject({ job: jobId, uses: 2 });
  });

  it.each([
    ['the closed event, then the push of the merge commit', 'closed', 'push'],
    ['the push of the merge commit, then the closed event', 'push', 'closed'],
  ] as const)(
    'a merge that carries a request left waiting is recorded as told (%s): the other sends nothing',
    async (_name, first, second) => {
      const { gh, step, compares, sends, lastMessage } = await threadWorld();
      const pr = gh.thread(APP, { mergeCommitSha: sha(9), headSha: sha(1) });
      const inputs = { followUp: 'at-merge', trigger: '/docs' };
      const opened = await play(step(pullRequestAt(pr.number, sha(1), 'opened'), inputs, 291));
      const jobId = opened.outputs.jobId ?? '';
      await play(step(pushTo(pr, sha(2)), inputs, 292));
      compares(1, 2);
      // A request whose own run GitHub never ran (its queue replaced it): the merge's run carries it.
      gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs the upgrade guide' });
      pr.merged = true;
      const closed = pullRequestAt(pr.number, sha(2), 'closed');
      const events = {
        closed: {
          ...closed,
          payload: { ...closed.payload, pull_request: { ...closed.payload.pull_request, merged: true } },
        },
        push: pushEvent(sha(9), { before: sha(8) }),
      };
      const told = await play(step(events[first], inputs, 293));
      expect(told.outputs).toMatchObject({ mode: 'followed-up', jobId, uses: '1' });
      expect(lastMessage()).toContain('the upgrade guide');
      expect(sends()).toBe(2);

      const again = await play(step(events[second], inputs, 294));
      expect(again.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
      expect(again.stdout).toContain(`Skipped: run 293 already told job ${jobId} of this merge`);
      expect(sends()).toBe(2);
    },
  );

  it('a request whose comparison GitHub cannot make sends the whole pull request’s files, so no held push is lost', async () => {
    const { gh, pr, step, lastMessage } = await threadWorld();
    const atMerge = { followUp: 'at-merge' };
    await play(step(pushTo(pr, sha(1), 'opened'), atMerge, 271));
    await play(step(pushTo(pr, sha(2)), atMerge, 272));
    // No comparison of sha(1)...sha(2) (a forced push): the pull request lists its files.
    pr.files.push(changedFile('src/held.ts'));
    const request = gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs the flag' });
    const asked = await play(step(commentEvent(pr.number, request.body, { id: request.id }), atMerge, 273));
    expect(asked.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(lastMessage()).toContain('src/held.ts');
  });

  it('a push whose pull request GitHub cannot tell (so nor whether it is the merge) fails with nothing sent, and every line says so', async () => {
    const { gh, pr, step, sends } = await threadWorld();
    const atMerge = { followUp: 'at-merge' };
    await play(step(pushTo(pr, sha(1), 'opened'), atMerge, 281));
    // Final, so asked once: the run's look-up and its comment's end the same way.
    const refused = { status: 403, message: 'Resource not accessible by integration' };
    gh.fail('pullsOfCommit', refused, refused);
    const pushed = await play(
      step(pushEvent(sha(2), { before: sha(1), ref: `refs/heads/${pr.headRef}` }), atMerge, 282),
    );
    expect(pushed.code).toBe(1);
    expect(pushed.outputs).toMatchObject({ status: 'not-started', uses: '0' });
    expect(errors(pushed)).toEqual([
      'Could not find the pull request the pushed commit came from, so neither its thread nor whether this push is its merge is known (403 "Resource not accessible by integration"): githubToken needs contents: read and pull-requests: read on acme/app; grant it in the workflow\'s permissions block or to the token. Nothing was sent to the service, so the thread\'s job is not replaced by a second one; re-run once that is put right.',
    ]);
    // The comment's own look-up agrees: it says nothing of a job's result, as there is no job.
    expect(warnings(pushed)).toContainEqual(
      'Could not find the pull request the pushed commit came from (403 "Resource not accessible by integration"): githubToken needs contents: read and pull-requests: read on acme/app; grant it in the workflow\'s permissions block or to the token. Its comment is not written by this run.',
    );
    expect(`${pushed.stdout}`).not.toContain("the job's result is not affected");
    expect(gh.statuses(APP, sha(2))[0]?.description).toBe('Stopped before any job · run 282');
    expect(sends()).toBe(1);
  });

  it('a re-run of the opening resumes the job its first attempt created: it is not held back', async () => {
    const { pr, step, sends } = await threadWorld();
    const atMerge = { followUp: 'at-merge' };
    const opened = await play(step(pushTo(pr, sha(1), 'opened'), atMerge, 301));
    const again = await play({
      ...step(pullRequestAt(pr.number, sha(1), 'opened'), atMerge, 301),
      env: { ...step(pullRequestAt(pr.number, sha(1), 'opened'), atMerge, 301).env, GITHUB_RUN_ATTEMPT: '2' },
    });
    expect(again.outputs).toMatchObject({ mode: 'resumed', jobId: opened.outputs.jobId, uses: '0' });
    expect(sends()).toBe(1);
  });

  it('a re-run of a push it held back is held back again: the status naming the job is no job of that run', async () => {
    const { gh, pr, step, sends } = await threadWorld();
    const atMerge = { followUp: 'at-merge' };
    const opened = await play(step(pushTo(pr, sha(1), 'opened'), atMerge, 351));
    await play(step(pushTo(pr, sha(2)), atMerge, 352));
    const again = step(pullRequestAt(pr.number, sha(2)), atMerge, 352);
    const rerun = await play({ ...again, env: { ...again.env, GITHUB_RUN_ATTEMPT: '2' } });
    expect(rerun.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(gh.statuses(APP, sha(2)).map((s) => s.description)).toEqual([
      `Docs follow at the merge: job ${opened.outputs.jobId} · run 352`,
      `Docs follow at the merge: job ${opened.outputs.jobId} · run 352`,
    ]);
    expect(sends()).toBe(1);
  });

  it('a dry run whose prompt is longer than the summary holds says it was cut, and by how much', async () => {
    const { pr, step, sends } = await threadWorld();
    const prompt = `${'Document every flag. '.repeat(10_500)}THE END`;
    const dry = await play(step(pushTo(pr, sha(1), 'opened'), { prompt, dryRun: 'true' }, 403));
    expect(dry.outputs).toMatchObject({ mode: 'created', status: 'dry-run' });
    // The whole prompt: the one given, and what the event adds.
    const said =
      /Its first 200,000 of ([\d,]+) characters: the step summary holds no more \(([\d,]+) left out here\)\./.exec(
        dry.summary,
      );
    const [whole, left] = [said?.[1], said?.[2]].map((n) => Number((n ?? '').replace(/,/g, '')));
    expect(whole).toBeGreaterThanOrEqual(prompt.length);
    expect(left).toBe((whole ?? 0) - 200_000);
    expect(dry.summary).not.toContain('THE END');
    expect(sends()).toBe(0);
  });

  it('a dry run of a push says it would be skipped, and writes no status', async () => {
    const { gh, pr, step, sends } = await threadWorld();
    await play(step(pushTo(pr, sha(1), 'opened'), { followUp: 'at-merge' }, 401));
    const dry = await play(step(pushTo(pr, sha(2)), { followUp: 'at-merge', dryRun: 'true' }, 402));
    expect(dry.outputs).toEqual({ mode: 'skipped', status: 'dry-run', uses: '0' });
    expect(gh.statuses(APP, sha(2))).toEqual([]);
    expect(sends()).toBe(1);
  });
});

describe('followUp: on-request', () => {
  it('only requests send: the opening, a push and the merge end skipped with success statuses', async () => {
    const { gh, pr, step, compares, sends, merged } = await threadWorld();
    const onRequest = { followUp: 'on-request' };
    const opened = await play(step(pushTo(pr, sha(1), 'opened'), onRequest, 501));
    expect(opened.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(gh.statuses(APP, sha(1))).toEqual([
      expect.objectContaining({ state: 'success', description: 'Docs follow on request · run 501' }),
    ]);
    const request = gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs document the flag' });
    const asked = await play(step(commentEvent(pr.number, request.body, { id: request.id }), onRequest, 502));
    expect(asked.outputs).toMatchObject({ mode: 'created', uses: '1' });
    const pushed = await play(step(pushTo(pr, sha(2)), onRequest, 503));
    expect(pushed.outputs).toMatchObject({ mode: 'skipped', uses: '0' });
    compares(1, 2);
    const merge = await play(step(merged(sha(2)), onRequest, 504));
    expect(merge.outputs).toMatchObject({ mode: 'skipped', uses: '0' });
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'success',
      description: `Docs follow on request: job ${asked.outputs.jobId} · run 504`,
    });
    expect(sends()).toBe(1);
  });

  it("a job a request starts gets the pull request's files, as an opening would: the head it records was seen", async () => {
    const { gh, pr, step, service } = await threadWorld();
    const onRequest = { followUp: 'on-request' };
    pr.files.push(changedFile('src/flag.ts'), changedFile('src/cli.ts'));
    await play(step(pushTo(pr, sha(1), 'opened'), onRequest, 511));
    const request = gh.addComment(APP, pr.number, { login: 'octocat', body: '/docs document the flag' });
    const asked = await play(step(commentEvent(pr.number, request.body, { id: request.id }), onRequest, 512));
    expect(asked.outputs).toMatchObject({ mode: 'created', uses: '1' });
    const created = service.requests.find((r) => r.route === 'create')?.json as { prompt: string };
    expect(created.prompt).toContain('document the flag');
    expect(created.prompt).toContain('src/flag.ts');
    expect(created.prompt).toContain('src/cli.ts');
  });
});

describe('every-push', () => {
  it('a push with nothing new since the job last looked sends nothing, and leaves a success status naming the job', async () => {
    const { gh, pr, step, sends } = await threadWorld();
    const opened = await play(step(pushTo(pr, sha(1), 'opened'), {}, 601));
    // A comparison GitHub made, listing no file (a commit that only reverted another, say).
    gh.comparison(APP, `${sha(1)}...${sha(2)}`, { commits: [], files: [] });
    const pushed = await play(step(pushTo(pr, sha(2)), {}, 602));
    expect(pushed.code).toBe(0);
    expect(pushed.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(gh.statuses(APP, sha(2))).toEqual([
      expect.objectContaining({
        state: 'success',
        description: `Nothing new since the job last looked: job ${opened.outputs.jobId} · run 602`,
      }),
    ]);
    expect(sends()).toBe(1);
  });

  it('a merge with nothing new leaves the status that links the docs pull request as it is', async () => {
    const { gh, pr, step, sends, merged } = await threadWorld();
    const opened = await play(step(pushTo(pr, sha(1), 'opened'), {}, 611));
    const linked = gh.statuses(APP, sha(1))[0];
    expect(linked).toMatchObject({
      state: 'success',
      description: `Completed: job ${opened.outputs.jobId} · run 611`,
    });
    const merge = await play(step(merged(sha(1)), {}, 612));
    expect(merge.outputs).toMatchObject({ mode: 'skipped', uses: '0' });
    expect(gh.statuses(APP, sha(1))[0]).toEqual(linked);
    expect(sends()).toBe(1);
  });

  it('a comparison GitHub could not make is no evidence of nothing new: the push is sent', async () => {
    const { pr, step, sends } = await threadWorld();
    await play(step(pushTo(pr, sha(1), 'opened'), {}, 701));
    // No comparison of sha(1)...sha(2): GitHub answers 404 (a forced push), and the pull request
    // lists no file either.
    const pushed = await play(step(pushTo(pr, sha(2)), {}, 702));
    expect(pushed.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(sends()).toBe(2);
  });

  it('a branch forced back to older commits is no evidence of nothing new: the push is sent', async () => {
    const { gh, pr, step, sends } = await threadWorld();
    await play(step(pushTo(pr, sha(1), 'opened'), {}, 751));
    // GitHub's comparison of a head behind its base lists no file.
    gh.comparison(APP, `${sha(1)}...${sha(2)}`, { commits: [], files: [], behindBy: 1 });
    const pushed = await play(step(pushTo(pr, sha(2)), {}, 752));
    expect(pushed.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(sends()).toBe(2);
  });

  it("a push overtaken by a newer one sends nothing; the newer push's run carries both pushes' files", async () => {
    const { gh, pr, step, compares, sends, lastMessage } = await threadWorld();
    const opened = await play(step(pushTo(pr, sha(1), 'opened'), {}, 801));
    // sha(2) and sha(3) were pushed before sha(2)'s run started.
    pr.headSha = sha(3);
    compares(1, 2);
    const overtaken = await play(step(pullRequestAt(pr.number, sha(2)), {}, 802));
    expect(overtaken.code).toBe(0);
    expect(overtaken.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(overtaken.stdout).toContain(
      `::notice::Skipped: the pull request's head has moved on to ${sha(3).slice(0, 12)}`,
    );
    expect(gh.statuses(APP, sha(2))).toEqual([
      expect.objectContaining({
        state: 'success',
        description: `A newer push carries this change: job ${opened.outputs.jobId} · run 802`,
      }),
    ]);
    expect(sends()).toBe(1);

    compares(1, 3);
    const newer = await play(step(pullRequestAt(pr.number, sha(3)), {}, 803));
    expect(newer.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(lastMessage()).toContain('src/f2.ts');
    expect(lastMessage()).toContain('src/f3.ts');
    expect(sends()).toBe(2);
  });
});

describe('where a push stands, as GitHub tells it', () => {
  it("a push to a pull request's branch (a push event) overtaken by a newer one sends nothing", async () => {
    const { gh, step, sends } = await threadWorld();
    // The pull request holds the pushed sha(2); its branch has moved on to sha(3) since.
    const topic = gh.thread(APP, { commits: [sha(2)], headSha: sha(3) });
    const pushed = await play(
      step(pushEvent(sha(2), { before: sha(1), ref: `refs/heads/${topic.headRef}` }), {}, 902),
    );
    expect(pushed.code).toBe(0);
    expect(pushed.outputs).toMatchObject({ mode: 'skipped', uses: '0' });
    expect(pushed.stdout).toContain(
      `::notice::Skipped: the pull request's head has moved on to ${sha(3).slice(0, 12)}`,
    );
    expect(sends()).toBe(0);
  });

  it('a push to a branch whose commit GitHub lists under another pull request first is not overtaken by it', async () => {
    const { gh, step, sends } = await threadWorld();
    // A pull request stacked on the branch contains the pushed commit too, and GitHub lists it
    // first; its own head is further on. The branch's own pull request holds the pushed head.
    gh.thread(APP, { commits: [sha(2)], headSha: sha(5), headRef: 'stacked' });
    const topic = gh.thread(APP, { commits: [sha(2)], headSha: sha(2), headRef: 'topic' });
    const pushed = await play(step(pushEvent(sha(2), { before: sha(1), ref: 'refs/heads/topic' }), {}, 922));
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).not.toContain('has moved on');
    expect(pushed.outputs.mode).toBe('created');
    expect(sends()).toBe(1);
    // The thread is the branch's own pull request.
    expect(topic.comments).toHaveLength(1);
  });

  it("a push whose pull request GitHub has not moved to it yet (its head still the push's before) is not overtaken", async () => {
    const { gh, step, sends } = await threadWorld();
    const topic = gh.thread(APP, { commits: [sha(2)], headSha: sha(1) });
    const pushed = await play(
      step(pushEvent(sha(2), { before: sha(1), ref: `refs/heads/${topic.headRef}` }), {}, 912),
    );
    expect(pushed.outputs).toMatchObject({ mode: 'created', uses: '1' });
    expect(sends()).toBe(1);
  });

  it('GitHub not telling is a warning, and the push goes ahead', async () => {
    const { gh, pr, step, compares, sends } = await threadWorld();
    await play(step(pushTo(pr, sha(1), 'opened'), {}, 951));
    compares(1, 2);
    const down = { status: 502, message: 'Bad Gateway' };
    gh.fail('getPull', down, down, down, down);
    const pushed = await play(step(pushTo(pr, sha(2)), {}, 952));
    expect(pushed.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(warnings(pushed)).toEqual([
      expect.stringMatching(
        /^Could not read where the pull request’s head stands: .*The run goes on as if no newer push had come\.$/,
      ),
    ]);
    expect(sends()).toBe(2);
  });
});

describe('the followUp input', () => {
  it('is a bad input without thread, or when it names no policy; nothing is sent anywhere', async () => {
    const gh = await github();
    const { pr } = world(gh);
    const service = await emulator();
    const step = threadStep(service, gh);
    const without = await play(step(pushTo(pr, sha(1), 'opened'), { thread: 'false', followUp: 'at-merge' }));
    expect(without.code).toBe(1);
    expect(errors(without)).toEqual([
      'Input "followUp" is at-merge but thread is not true: it says which runs of a thread send to its job; set thread: true or leave followUp at every-push.',
    ]);
    const unknown = await play(step(pushTo(pr, sha(1), 'opened'), { followUp: 'at-release' }));
    expect(unknown.code).toBe(1);
    expect(errors(unknown)).toEqual([
      'Input "followUp" must be every-push, at-merge or on-request, got "at-release".',
    ]);
    expect(service.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });
});
