// A thread's run that does not wait (`wait: false`), played with run() in this process against both
// emulators: it sends, reads the job once, and ends; the thread records the job as waiting to be
// reported — with the pending status's commit and context and what the run asked of the docs PR —
// and carries the label that report runs find it by. The run that sees the job's end clears both.
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../__fixtures__/clock.js';
import {
  docsThread,
  emulators,
  gitHubEmulators,
  runHere as play,
  serviceTimeOnly,
  warnings,
} from '../__fixtures__/e2e.js';
import type { RunDeps } from '../src/main.js';
import { APP, pushTo, sha } from '../__fixtures__/github-world.js';
import { readNote } from '../src/github/note.js';
import { projectKey } from '../src/core/ledger.js';

const emulator = emulators({ activePolls: 0 });

/**
 * A run at `ms` past a fixed moment: the service's waits, and the moments a waiting job is left
 * and read, on the run's virtual clock; GitHub's side keeps the real one for its budgets.
 */
const at = (ms = 0): RunDeps => ({ ...serviceTimeOnly(), clock: new VirtualClock(1_700_000_000_000 + ms) });
const github = gitHubEmulators();

describe('wait: false on a thread', () => {
  it('sends, reads the job once, ends: the thread records the job as waiting, labelled, its status pending', async () => {
    const { gh, pr, step } = await docsThread(github, emulator);
    const service = await emulator({ activePolls: 1000 });
    const { inputs, env } = step(pushTo(pr, sha(2), 'opened'));
    const result = await play(
      {
        inputs: { ...inputs, baseUrl: service.url, wait: 'false', labels: 'docs', timeout: '2h' },
        env,
        event: pushTo(pr, sha(2), 'opened'),
      },
      at(),
    );
    expect(result.code).toBe(0);
    expect(warnings(result)).toEqual([]);
    expect(result.outputs).toMatchObject({ mode: 'created', status: 'active', uses: '1' });
    expect(service.count('get')).toBeLessThanOrEqual(1);

    const kept = pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
    const [pending] = gh.statuses(APP, sha(2));
    expect(pending).toMatchObject({ state: 'pending' });
    expect(readNote(kept)?.waiting).toEqual({
      run: expect.any(Number),
      at: expect.any(Number),
      timeout: 2 * 60 * 60 * 1000,
      status: { sha: sha(2), context: pending?.context },
      labels: ['docs'],
      project: projectKey(service.url, 'proj_docs'),
    });
    expect(pr.labels).toEqual(['docs-agent-working']);
  });

  it('the run that sees the job end clears the record and the label', async () => {
    const { pr, step, service } = await docsThread(github, emulator);
    const opening = step(pushTo(pr, sha(2), 'opened'));
    service.script('get', { job: { status: 'active' } });
    await play({ ...opening, inputs: { ...opening.inputs, wait: 'false' } }, at());
    expect(pr.labels).toEqual(['docs-agent-working']);

    const next = await play(step(pushTo(pr, sha(3))), at());
    expect(next.outputs).toMatchObject({ mode: 'followed-up', status: 'completed' });
    const kept = pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
    expect(readNote(kept)?.waiting).toBeUndefined();
    expect(pr.labels).toEqual([]);
  });

  describe("the thread's next run reports the waiting job's end before it decides", () => {
    /** A thread under at-merge whose opening did not wait; its job then ends as `end` says. */
    async function waited(end: Parameters<Awaited<ReturnType<typeof emulator>>['script']>[1]) {
      const world = await docsThread(github, emulator);
      const { pr, step, service } = world;
      const asked = { followUp: 'at-merge', labels: 'docs' };
      service.script('get', { job: { status: 'active' } });
      const opening = step(pushTo(pr, sha(2), 'opened'), { ...asked, wait: 'false' });
      const first = await play(opening, at());
      service.unscript('get');
      service.script('get', end);
      const push = await play(step(pushTo(pr, sha(3)), asked), at());
      const kept = () => pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
      return { ...world, first, push, kept };
    }

    it('completed: the comment, the pending status on its own commit, the docs PR labelled, the thread unlabelled — then held by followUp', async () => {
      const { gh, pr, docsPr, docsLink, service, first, push, kept } = await waited({});
      expect(push.code).toBe(0);
      expect(warnings(push)).toEqual([]);
      expect(push.stdout).toContain(
        `Agent job ${first.outputs.jobId}, which run ${readNote(kept())?.run ?? ''} left at work, is completed: its end is reported on the thread first.`,
      );
      expect(push.outputs).toMatchObject({ mode: 'skipped', status: 'skipped' });
      expect(service.count('create')).toBe(1);
      expect(service.count('message')).toBe(0);
      const [opening, held] = [gh.statuses(APP, sha(2)), gh.statuses(APP, sha(3))];
      expect(opening.map((s) => s.state)).toEqual(['success', 'pending']);
      expect(opening[0]).toMatchObject({ target_url: docsLink, context: opening[1]?.context });
      expect(held[0]).toMatchObject({ state: 'success', context: opening[1]?.context });
      expect(docsPr.labels).toEqual(['docs']);
      expect(pr.labels).toEqual([]);
      expect(kept()).toContain('✅ **Completed**');
      expect(readNote(kept())?.waiting).toBeUndefined();
    });

    it('unknown to the service: reported as an error, never left pending', async () => {
      const { gh, pr, push, kept } = await waited({ status: 404, json: { error: 'Job not found' } });
      expect(push.code).toBe(0);
      expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
        state: 'error',
        description: expect.stringContaining('No longer known to the service'),
      });
      expect(kept()).toContain('no longer knows agent job');
      expect(readNote(kept())?.waiting).toBeUndefined();
      expect(pr.labels).toEqual([]);
    });

    it('still at work within its timeout: nothing written, still waiting', async () => {
      const { gh, pr, push, kept } = await waited({ job: { status: 'active' } });
      expect(push.stdout).toContain('is still at work.');
      expect(gh.statuses(APP, sha(2))[0]).toMatchObject({ state: 'pending' });
      expect(readNote(kept())?.waiting).toBeDefined();
      expect(pr.labels).toEqual(['docs-agent-working']);
    });
  });

  it('a later run that follows the job up while it works and sees it end resolves the earlier pending status too', async () => {
    const { gh, pr, step, service, docsLink } = await docsThread(github, emulator);
    service.script('get', { job: { status: 'active' } });
    await play(step(pushTo(pr, sha(2), 'opened'), { wait: 'false' }), at());
    service.unscript('get');
    // Still at work when the next push's run reads it; then the follow-up ends with the docs PR.
    service.script('get', { job: { status: 'active' } });
    const next = await play(step(pushTo(pr, sha(3))), at());
    expect(next.outputs).toMatchObject({ mode: 'followed-up', status: 'completed' });
    for (const commit of [sha(2), sha(3)])
      expect(gh.statuses(APP, commit)[0]).toMatchObject({ state: 'success', target_url: docsLink });
    expect(pr.labels).toEqual([]);
  });

  it('at work past its timeout: the thread is told (its status fails), and it still waits for the real end', async () => {
    const { gh, pr, step, service } = await docsThread(github, emulator);
    service.script('get', { job: { status: 'active' } });
    await play(step(pushTo(pr, sha(2), 'opened'), { wait: 'false', timeout: '1h' }), at());
    service.unscript('get');
    service.script('get', { job: { status: 'active' } }, { job: { status: 'active' } });
    // The next run comes two hours on.
    await play(step(pushTo(pr, sha(3)), { followUp: 'at-merge' }), at(2 * 60 * 60 * 1000));
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'error',
      description: expect.stringContaining('Timed out'),
    });
    expect(pr.labels).toEqual(['docs-agent-working']);
    const kept = pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
    expect(readNote(kept)?.waiting).toMatchObject({ overdue: true });
  });
});
