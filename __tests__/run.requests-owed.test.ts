// Every request answered, whatever order GitHub runs the runs in, played with run() in this process
// against both emulators: a `/docs` whose own run GitHub cancelled is carried by the next run that
// sends, a push or the merge included (and a push its policy would hold back sends for it); a send
// the service answered 429 settles nothing; a request posted while the thread's first run worked is
// owed, not "already delivered"; an author GitHub cannot tell about waits without holding the rest.
import { describe, expect, it } from '@jest/globals';
import { docsThread, emulators, gitHubEmulators, runHere as play } from '../__fixtures__/e2e.js';
import { APP, commentEvent, pushTo, sha } from '../__fixtures__/github-world.js';
import type { StoredComment } from '../emulators/github.js';
import { readNote } from '../src/github/note.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

async function requestWorld() {
  const { gh, pr, service, step: thread } = await docsThread(github, emulator);
  gh.collaborator(APP, 'mona', 'write');
  const ask = (body: string, login = 'octocat') => gh.addComment(APP, pr.number, { login, body });
  const request = (comment: StoredComment, run: number, inputs: Record<string, string> = {}) =>
    play(
      thread(commentEvent(pr.number, comment.body, { id: comment.id, login: comment.login }), inputs, {
        GITHUB_RUN_ID: String(run),
      }),
    );
  const push = (n: number, run: number, inputs: Record<string, string> = {}, action = 'synchronize') =>
    play(thread(pushTo(pr, sha(n), action), inputs, { GITHUB_RUN_ID: String(run) }));
  const prompts = () =>
    service.requests
      .filter((r) => r.route === 'create' || r.route === 'message')
      .map((r) => (r.json as { prompt: string }).prompt);
  const ledger = () =>
    readNote(pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '')?.requests;
  return { gh, pr, service, thread, ask, request, push, prompts, ledger };
}

describe('a request whose own run GitHub cancelled', () => {
  it('is carried by the push that queued after it: every one of a burst, with its 👀', async () => {
    const { ask, push, prompts, ledger } = await requestWorld();
    await push(1, 101, {}, 'opened');
    // Five requests while a run worked; GitHub cancelled their pending runs for the push's.
    const burst = ['the FAQ', 'the README', 'the changelog', 'the upgrade guide', 'the CLI page'].map(
      (t, i) => ask(`/docs ${t}`, i % 2 ? 'mona' : 'octocat'),
    );
    const pushed = await push(2, 102);
    expect(pushed.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    for (const text of ['the FAQ', 'the README', 'the changelog', 'the upgrade guide', 'the CLI page'])
      expect(prompts().at(-1)).toContain(text);
    for (const c of burst) expect(c.reactions).toEqual(['eyes']);
    expect(ledger()?.settled[0]).toEqual({ run: 102, ids: burst.map((c) => c.id) });
  });

  it('under at-merge, a push that would send nothing sends the requests that wait', async () => {
    const { ask, push, prompts } = await requestWorld();
    const atMerge = { followUp: 'at-merge' };
    await push(1, 111, atMerge, 'opened');
    const asked = ask('/docs the retry flag');
    const pushed = await push(2, 112, atMerge);
    expect(pushed.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(prompts().at(-1)).toContain('the retry flag');
    expect(asked.reactions).toEqual(['eyes']);
    // Nothing waits now: the next push is held back as the policy says.
    const next = await push(3, 113, atMerge);
    expect(next.outputs).toMatchObject({ mode: 'skipped', uses: '0' });
  });
});

describe('a send the service answered 429', () => {
  const quota = { status: 429, headers: { 'retry-after': '3600' }, json: { error: 'Rate limit' } };

  it('on a thread without a job: the next request carries it', async () => {
    const { service, ask, request, prompts } = await requestWorld();
    service.script('create', quota);
    const first = ask('/docs the timeout flag');
    const refused = await request(first, 201);
    expect(refused.code).toBe(1);
    const second = ask('/docs the retry flag');
    const next = await request(second, 202);
    expect(next.outputs).toMatchObject({ mode: 'created', uses: '1' });
    expect(prompts().at(-1)).toContain('the timeout flag');
    expect(prompts().at(-1)).toContain('the retry flag');
    expect(first.reactions).toEqual(['eyes']);
  });

  it('on a thread with a job: the next push carries it, not the next request', async () => {
    const { service, ask, request, push, prompts, ledger } = await requestWorld();
    await push(1, 211, {}, 'opened');
    service.script('message', quota);
    const asked = ask('/docs the timeout flag');
    expect((await request(asked, 212)).code).toBe(1);
    expect(ledger()?.settled.flatMap((e) => e.ids)).not.toContain(asked.id);
    const pushed = await push(2, 213);
    expect(pushed.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(prompts().at(-1)).toContain('the timeout flag');
    expect(ledger()?.settled[0]).toEqual({ run: 213, ids: [asked.id] });
  });
});

describe("a request posted while the thread's first run worked", () => {
  it('is owed, not "already delivered": its own run sends it', async () => {
    const { gh, pr, service, thread, ask, request, prompts } = await requestWorld();
    // The first run reads the thread, then sends; the request comes before it posts its comment.
    const first = play(thread(pushTo(pr, sha(1), 'opened'), {}, { GITHUB_RUN_ID: '301' }));
    while (service.count('create') === 0) await new Promise((resolve) => setImmediate(resolve));
    const posted = ask('/docs the cache flag');
    expect((await first).outputs).toMatchObject({ mode: 'created' });
    const kept = pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'));
    expect(kept?.id).toBeGreaterThan(posted.id);
    expect(prompts()[0]).not.toContain('the cache flag');
    const own = await request(posted, 302);
    expect(own.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(prompts().at(-1)).toContain('the cache flag');
    expect(gh.count('createComment')).toBeGreaterThanOrEqual(1);
  });
});

describe('an author GitHub cannot tell about', () => {
  it('waits, owed, without holding back the requests after it', async () => {
    const { gh, ask, request, push, prompts, ledger } = await requestWorld();
    await push(1, 401, {}, 'opened');
    const strangers = ask('/docs the cache flag', 'stranger');
    const monas = ask('/docs the FAQ', 'mona');
    const own = ask('/docs the retry flag');
    // GitHub answers 404 for the stranger's role: not told, so it waits.
    gh.fail('getCollaboratorPermission', { status: 404, message: 'Not Found' });
    const run = await request(own, 402, { allowedActors: 'octocat' });
    expect(run.outputs).toMatchObject({ mode: 'followed-up', uses: '1' });
    expect(prompts().at(-1)).toContain('the FAQ');
    expect(prompts().at(-1)).toContain('the retry flag');
    expect(prompts().at(-1)).not.toContain('the cache flag');
    expect(monas.reactions).toEqual(['eyes']);
    expect(strangers.reactions).toEqual([]);
    const settled = ledger();
    expect(settled?.settled[0]).toEqual({ run: 402, ids: [monas.id, own.id] });
    expect(settled?.floor).toBeLessThan(strangers.id);
  });
});
