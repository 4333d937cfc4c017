// A push that lands several merges at once — a merge queue's group, or merges pushed together —
// played with run() in this process against both emulators: each merged pull request's thread is
// told of its merge, its job followed up, its kept comment and a commit status on its own merge
// commit written; the outputs are the pushed commit's own thread's.
import { describe, expect, it } from '@jest/globals';
import { emulators, gitHubEmulators, runHere as play, threadStep, warnings } from '../__fixtures__/e2e.js';
import { APP, changedFile, pullRequestAt, pushEvent, sha, world } from '../__fixtures__/github-world.js';
import type { RunOptions } from '../__fixtures__/runner.js';
import { readNote } from '../src/github/note.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

/** Two pull requests of acme/app, each opened (a job each), then merged by one push to main. */
async function queueWorld(inputs: Record<string, string> = { followUp: 'at-merge' }) {
  const gh = await github();
  const { docsLink } = world(gh);
  // GitHub names a pull request's merge commit while it is open (its test merge) too.
  const first = gh.thread(APP, { mergeCommitSha: sha(7), headSha: sha(1) });
  const second = gh.thread(APP, { mergeCommitSha: sha(8), headSha: sha(2) });
  const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
  const thread = threadStep(service, gh);
  const step = (event: RunOptions['event'], run: number): RunOptions =>
    thread(event, inputs, { GITHUB_RUN_ID: String(run) });
  const one = await play(step(pullRequestAt(first.number, sha(1), 'opened'), 101));
  const two = await play(step(pullRequestAt(second.number, sha(2), 'opened'), 102));
  // The queue merges both: a merge commit each (7 for the first, 8 for the second), one push.
  first.merged = true;
  second.merged = true;
  // What a merge's context reads: the push up to that merge.
  gh.comparison(APP, `${sha(6)}...${sha(7)}`, { commits: [], files: [changedFile('src/first.ts')] });
  gh.comparison(APP, `${sha(6)}...${sha(8)}`, {
    commits: [],
    files: [changedFile('src/first.ts'), changedFile('src/second.ts')],
  });
  const push = pushEvent(sha(8), {
    before: sha(6),
    commits: [sha(1), sha(7), sha(2), sha(8)].map((id) => ({ id, message: `commit ${id.slice(0, 1)}` })),
  });
  const kept = (pr: { comments: { body: string }[] }) =>
    pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
  const told = (jobId: string | undefined) =>
    service.requests.filter((r) => r.route === 'message' && r.path.includes(`/job/${jobId}/`)).length;
  const jobs = [one.outputs.jobId, two.outputs.jobId];
  return { gh, first, second, service, step, push, jobs, kept, told, docsLink };
}

describe('a push that lands several merges', () => {
  it("under at-merge tells each merged pull request's thread: a follow-up to each job, a status on each merge commit, the outputs the pushed commit's", async () => {
    const { gh, first, second, service, step, push, jobs, kept, told, docsLink } = await queueWorld();
    expect(service.count('create')).toBe(2);

    const merge = await play(step(push, 103));
    expect(merge.code).toBe(0);
    expect(warnings(merge)).toEqual([]);
    expect(merge.outputs).toMatchObject({ mode: 'followed-up', jobId: jobs[1], uses: '1' });
    expect(told(jobs[0])).toBe(1);
    expect(told(jobs[1])).toBe(1);
    expect(service.count('create')).toBe(2);
    expect(merge.stdout).toContain(
      `This push also merged pull request #${first.number}: its thread is told too.`,
    );
    // Each thread's own record: one more use each, its own job.
    expect(readNote(kept(first))).toMatchObject({ job: jobs[0], uses: 2 });
    expect(readNote(kept(second))).toMatchObject({ job: jobs[1], uses: 2 });
    // Each merge commit carries its own thread's status, pending then success with the docs PR.
    for (const commit of [sha(7), sha(8)]) {
      expect(gh.statuses(APP, commit).map((s) => s.state)).toEqual(['success', 'pending']);
      expect(gh.statuses(APP, commit)[0]?.target_url).toBe(docsLink);
    }
    // The summary names the other pull request's job.
    expect(merge.summary).toContain(`Documentation agent job for pull request #${first.number}`);
  });

  it('a re-run of that push resumes each thread’s own follow-up, sending nothing again', async () => {
    const { service, step, push, jobs, told } = await queueWorld();
    await play(step(push, 103));
    const again = await play({
      ...step(push, 103),
      env: { ...step(push, 103).env, GITHUB_RUN_ATTEMPT: '2' },
    });
    expect(again.code).toBe(0);
    expect(told(jobs[0])).toBe(1);
    expect(told(jobs[1])).toBe(1);
    expect(service.count('create')).toBe(2);
  });

  it('a push of one merge asks GitHub for no list of merged pull requests', async () => {
    const { gh, first, step } = await queueWorld();
    const single = pushEvent(sha(7), { before: sha(6), commits: [{ id: sha(7), message: 'squash' }] });
    const before = gh.requests.length;
    await play(step(single, 104));
    expect(gh.requests.slice(before).filter((r) => r.route === 'listPulls')).toEqual([]);
    expect(first.merged).toBe(true);
  });
});
