// A thread's run that does not wait (`wait: false`), played with run() in this process against both
// emulators: it sends, reads the job once, and ends; the thread records the job as waiting to be
// reported — with the pending status's commit and context and what the run asked of the docs PR —
// and carries the label that report runs find it by. The run that sees the job's end clears both.
import { describe, expect, it } from '@jest/globals';
import { docsThread, emulators, gitHubEmulators, runHere as play, warnings } from '../__fixtures__/e2e.js';
import { APP, pushTo, sha } from '../__fixtures__/github-world.js';
import { readNote } from '../src/github/note.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('wait: false on a thread', () => {
  it('sends, reads the job once, ends: the thread records the job as waiting, labelled, its status pending', async () => {
    const { gh, pr, step } = await docsThread(github, emulator);
    const service = await emulator({ activePolls: 1000 });
    const { inputs, env } = step(pushTo(pr, sha(2), 'opened'));
    const result = await play({
      inputs: { ...inputs, baseUrl: service.url, wait: 'false', labels: 'docs', timeout: '2h' },
      env,
      event: pushTo(pr, sha(2), 'opened'),
    });
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
    });
    expect(pr.labels).toEqual(['docs-agent-working']);
  });

  it('the run that sees the job end clears the record and the label', async () => {
    const { pr, step, service } = await docsThread(github, emulator);
    const opening = step(pushTo(pr, sha(2), 'opened'));
    service.script('get', { job: { status: 'active' } });
    await play({ ...opening, inputs: { ...opening.inputs, wait: 'false' } });
    expect(pr.labels).toEqual(['docs-agent-working']);

    const next = await play(step(pushTo(pr, sha(3))));
    expect(next.outputs).toMatchObject({ mode: 'followed-up', status: 'completed' });
    const kept = pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
    expect(readNote(kept)?.waiting).toBeUndefined();
    expect(pr.labels).toEqual([]);
  });
});
