// The thread's promises in every order GitHub runs the runs: a model of GitHub's scheduling
// drives run() in this process against both emulators through sequences fast-check generates,
// and the promises are checked after every step. GitHub's default concurrency queue keeps one
// pending run a group and cancels the older pending one when a newer run queues; comments and
// pushes arrive while a run works; runs are re-run; the service answers 429 or 500; GitHub
// refuses a read. The promises:
// - every writer's request is sent in exactly one accepted send (an outsider's in none);
// - no request is settled as sent that no accepted send carried;
// - no use is spent on a push with nothing new when no request waits;
// - the thread's count of uses equals its accepted sends;
// - no status is left pending by a finished run;
// - a thread never has two jobs after a fault.
// 500 sequences run in the `runs` project, in five tests of 100 (about 25 s on two idle cores). On a failure fast-check
// prints the seed and the path: `FC_SEED=… FC_PATH=… npm run test:orders` replays it (add
// `FC_TRACE=1` for each run's log), and `FC_RUNS=10000 npm run test:orders` is the nightly-sized
// run (about 12 minutes). A sequence found once is kept below as an example.
import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { createHash } from 'node:crypto';
import { startGitHubEmulator, type GitHubEmulator, type StoredComment } from '../emulators/github.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { inputsFor, KEY, serviceTimeOnly } from '../__fixtures__/e2e.js';
import {
  APP,
  changedFile,
  DOCS_TOKEN,
  gitHubEnv,
  pullRequestAt,
  world,
} from '../__fixtures__/github-world.js';
import { runInProcess, type RunOptions } from '../__fixtures__/runner.js';
import { readNote } from '../src/github/note.js';
import type { RunDeps } from '../src/main.js';

/** Who asks: a writer, another writer, and someone without write access. */
const PEOPLE = ['octocat', 'mona', 'stranger'] as const;
type Person = (typeof PEOPLE)[number];

type Step =
  | { t: 'ask'; who: Person }
  | { t: 'chat' }
  | { t: 'push'; files: boolean }
  | { t: 'merge' }
  | { t: 'run'; service: 'ok' | '429' | '500' | 'github-403' }
  | { t: 'overlap'; who: Person }
  | { t: 'rerun' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('ask' as const), who: fc.constantFrom(...PEOPLE) }) },
  { weight: 1, arbitrary: fc.constant({ t: 'chat' as const }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('push' as const), files: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ t: 'merge' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('run' as const),
      service: fc.constantFrom(
        'ok' as const,
        'ok' as const,
        '429' as const,
        '500' as const,
        'github-403' as const,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('overlap' as const), who: fc.constantFrom(...PEOPLE) }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'rerun' as const }) },
);

const sequence = fc.record({
  followUp: fc.constantFrom('every-push', 'at-merge'),
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
});

/** The model's nth commit, as GitHub would name one (no run of digits a token shares). */
const shaOf = (n: number) => createHash('sha1').update(`commit ${n}`).digest('hex');

/** A run GitHub queued: what started it, and the run id and attempt it runs as. */
interface QueuedRun {
  kind: 'push' | 'request' | 'merge';
  runId: number;
  attempt: number;
  head: number;
  comment?: StoredComment;
}

/** One sequence's world: both emulators, a pull request, and what the model knows of it. */
async function playSequence(followUp: string, steps: Step[]): Promise<void> {
  const gh = await startGitHubEmulator();
  const { pr, docsLink } = world(gh);
  const accepted: string[] = [];
  const service = await startEmulator({
    apiKey: KEY,
    activePolls: 0,
    final: { status: 'completed', prLink: docsLink },
    onReply: (request, status) => {
      if (
        (request.route === 'create' || request.route === 'message') &&
        typeof status === 'number' &&
        status < 300
      )
        accepted.push((request.json as { prompt: string }).prompt);
    },
  });
  try {
    gh.collaborator(APP, 'mona', 'write');
    await model(gh, service, pr, accepted, followUp, steps);
    expect(gh.violations).toEqual([]);
    expect(service.violations).toEqual([]);
  } finally {
    await Promise.all([gh.close(), service.close()]);
  }
}

async function model(
  gh: GitHubEmulator,
  service: Emulator,
  pr: ReturnType<typeof world>['pr'],
  accepted: string[],
  followUp: string,
  steps: Step[],
): Promise<void> {
  let nextRunId = 1000;
  let head = 1;
  let merged = false;
  let pending: QueuedRun | undefined;
  let last: QueuedRun | undefined;
  const pushed = new Map<number, boolean>([[1, true]]);
  const asked: { comment: StoredComment; who: Person }[] = [];
  const touched = new Set<number>([1]);
  let asks = 0;

  // Every comparison GitHub can make between two heads of the pull request: the files of the
  // pushes in between (none when they changed nothing).
  const compare = (to: number) => {
    for (let from = 1; from < to; from++) {
      const files = [];
      for (let n = from + 1; n <= to; n++) if (pushed.get(n)) files.push(changedFile(`src/f${n}.ts`));
      gh.comparison(APP, `${shaOf(from)}...${shaOf(to)}`, { commits: [], files });
    }
  };
  pr.headSha = shaOf(1);
  pr.files.push(changedFile('src/f1.ts'));

  const enqueue = (run: Omit<QueuedRun, 'runId' | 'attempt'>) => {
    // GitHub's default queue: a newer run cancels the pending one.
    pending = { ...run, runId: nextRunId++, attempt: 1 };
  };
  const ask = (who: Person) => {
    const text = `request-${++asks}`;
    const comment = gh.addComment(APP, pr.number, { login: who, body: `/docs ${text}` });
    asked.push({ comment, who });
    // The workflow's `if:` lets only comments that hold /docs in.
    enqueue({ kind: 'request', head, comment });
  };
  const eventOf = (run: QueuedRun): RunOptions['event'] => {
    if (run.kind === 'request' && run.comment) {
      const c = run.comment;
      return {
        name: 'issue_comment',
        payload: {
          action: 'created',
          issue: {
            number: pr.number,
            pull_request: { url: `https://api.github.com/repos/${APP}/pulls/${pr.number}` },
          },
          comment: {
            id: c.id,
            body: c.body,
            user: { login: c.login, type: 'User' },
            html_url: `${gh.serverUrl}/${APP}/pull/${pr.number}#issuecomment-${c.id}`,
            author_association: 'MEMBER',
          },
          repository: { name: 'app', owner: { login: 'acme' } },
          sender: { login: c.login, type: 'User' },
        },
      };
    }
    const event = pullRequestAt(pr.number, shaOf(run.head), run.kind === 'merge' ? 'closed' : 'synchronize');
    if (run.kind !== 'merge') return event;
    return {
      ...event,
      payload: { ...event.payload, pull_request: { ...event.payload.pull_request, merged: true } },
    };
  };
  const options = (run: QueuedRun): RunOptions => ({
    inputs: inputsFor(service, {
      thread: 'true',
      status: 'true',
      context: 'auto',
      trigger: '/docs',
      followUp,
      docsToken: DOCS_TOKEN,
      timeout: '30m',
    }),
    env: { ...gitHubEnv(gh), GITHUB_RUN_ID: String(run.runId), GITHUB_RUN_ATTEMPT: String(run.attempt) },
    event: eventOf(run),
  });

  /** Sent in an accepted send: how many times the request's text went. */
  const sentTimes = (c: StoredComment) => {
    const text = c.body.slice('/docs '.length);
    return accepted.filter((p) => new RegExp(`\\b${text}\\b`).test(p)).length;
  };
  const owed = () => asked.filter((a) => a.who !== 'stranger' && sentTimes(a.comment) === 0);
  const ledger = () =>
    readNote(pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '');

  /** Whether any push after head `from`, up to head `to`, changed a file. */
  const changedSince = (from: number, to: number) => {
    for (let n = from + 1; n <= to; n++) if (pushed.get(n)) return true;
    return false;
  };
  const play = async (run: QueuedRun, service_: Step & { t: 'run' | 'overlap' }) => {
    const sendsBefore = accepted.length;
    const sends = () => service.requests.filter((r) => r.route === 'create' || r.route === 'message').length;
    const sendsAsked = sends();
    const owedBefore = owed().length;
    const seen = ledger()?.head;
    const seenAt =
      seen === undefined
        ? undefined
        : Array.from({ length: head }, (_, i) => i + 1).find((n) => shaOf(n) === seen);
    if (service_.t === 'run') {
      if (service_.service === '429')
        for (const route of ['create', 'message'] as const)
          service.script(route, {
            status: 429,
            headers: { 'retry-after': '7200' },
            json: { error: 'Rate limit' },
          });
      if (service_.service === '500')
        for (const route of ['create', 'message'] as const)
          service.script(route, { status: 500, json: { error: 'Internal error' } });
      if (service_.service === 'github-403')
        gh.fail('listComments', { status: 403, message: 'Resource not accessible by integration' });
    }
    const deps: RunDeps = serviceTimeOnly();
    const running = runInProcess(options(run), deps);
    if (service_.t === 'overlap') {
      // A request comes while the run works: once the service has its send, or the run is over.
      let done = false;
      void running.then(() => (done = true));
      while (!done && sends() === sendsAsked) await new Promise((resolve) => setImmediate(resolve));
      ask(service_.who);
    }
    const result = await running;
    if (process.env.FC_TRACE)
      console.log(`${run.kind} ${run.runId}.${run.attempt} ${JSON.stringify(service_)}\n${result.stdout}`);
    // What the run did not meet goes: the next run meets the service and GitHub as usual.
    for (const route of ['create', 'message'] as const) service.unscript(route);
    gh.unfail('listComments');
    last = run;
    touched.add(run.head);
    touched.add(head);
    const spent = accepted.length - sendsBefore;

    // The thread's count equals its accepted sends.
    expect(ledger()?.uses ?? 0).toBe(accepted.length);
    expect(Number(result.outputs.uses ?? '0')).toBe(spent);
    // No use on a push with nothing new when no request waited.
    if (run.kind === 'push' && owedBefore === 0 && seenAt !== undefined && !changedSince(seenAt, run.head))
      expect(spent).toBe(0);
    // No request settled as sent that no accepted send carried.
    const requests = ledger()?.requests;
    for (const entry of requests?.settled ?? [])
      if (!entry.refused)
        for (const id of entry.ids) {
          const c = asked.find((a) => a.comment.id === id)?.comment;
          expect(c && sentTimes(c)).toBeGreaterThan(0);
        }
    // No status left pending by a finished run.
    for (const n of touched) {
      const newest = gh.statuses(APP, shaOf(n))[0];
      expect(newest?.state).not.toBe('pending');
    }
    // Never two jobs for one thread.
    expect(service.jobs.size).toBeLessThanOrEqual(1);
  };

  for (const s of steps) {
    switch (s.t) {
      case 'ask':
        ask(s.who);
        break;
      case 'chat':
        gh.addComment(APP, pr.number, { login: 'octocat', body: 'Looks good to me' });
        break;
      case 'push':
        if (merged) break;
        head++;
        pushed.set(head, s.files);
        pr.headSha = shaOf(head);
        if (s.files) pr.files.push(changedFile(`src/f${head}.ts`));
        compare(head);
        enqueue({ kind: 'push', head });
        break;
      case 'merge':
        if (merged) break;
        merged = true;
        pr.merged = true;
        enqueue({ kind: 'merge', head });
        break;
      case 'run':
      case 'overlap':
        if (pending) {
          const run = pending;
          pending = undefined;
          await play(run, s);
        }
        break;
      case 'rerun':
        if (last && !pending) pending = { ...last, attempt: last.attempt + 1 };
        break;
    }
  }
  // GitHub runs what is pending; then one more request, whose run carries whatever is owed.
  if (pending) await play(pending, { t: 'run', service: 'ok' });
  pending = undefined;
  if (owed().length > 0) {
    ask('octocat');
    const final = pending as QueuedRun | undefined;
    if (final) await play(final, { t: 'run', service: 'ok' });
  }
  // Every writer's request sent exactly once; an outsider's never.
  for (const { comment, who } of asked)
    expect([who, sentTimes(comment)]).toEqual([who, who === 'stranger' ? 0 : 1]);
}

describe('sequences the exploration found, kept as examples', () => {
  it.each<[string, Step[]]>([
    [
      'every-push',
      [
        { t: 'push', files: false },
        { t: 'run', service: 'ok' },
        { t: 'push', files: false },
        { t: 'overlap', who: 'octocat' },
      ],
    ],
  ])('%s: %j', async (followUp, steps) => {
    await expect(playSequence(followUp, steps)).resolves.toBeUndefined();
  });
});

describe('the thread keeps its promises in every order GitHub runs the runs', () => {
  const runs = Number(process.env.FC_RUNS ?? 500);
  const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
  const path = process.env.FC_PATH;
  // Batches of 100, each its own test, seeded afresh: no one test comes near jest's time limit on
  // a loaded machine. A seed given replays that one sequence of runs.
  const batches = seed === undefined ? Math.max(1, Math.ceil(runs / 100)) : 1;
  const each = Math.ceil(runs / batches);

  it.each(Array.from({ length: batches }, (_, i) => i + 1))(
    `explores ${each} generated sequences (batch %i of ${batches})`,
    async () => {
      const explored = fc.assert(
        fc.asyncProperty(sequence, ({ followUp, steps }) => playSequence(followUp, steps)),
        {
          numRuns: each,
          ...(seed !== undefined ? { seed } : {}),
          ...(path ? { path } : {}),
          endOnFailure: false,
        },
      );
      await expect(explored).resolves.toBeUndefined();
    },
  );
});
