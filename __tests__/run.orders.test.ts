// The thread's promises in every order GitHub runs the runs: a model of GitHub's scheduling
// drives run() in this process against both emulators through sequences fast-check generates,
// and the promises are checked after every step. It plays the thread recipe that waits
// (`wait: true`) and the recipe without waiting (`wait: false`, one job), each with its
// concurrency group's `queue: max` as the recipes write it (every run of a group runs, in order):
// the thread's runs (pushes, `/docs` requests, the merge), the lane runs a report run
// dispatches for the thread, report runs on a schedule and on the docs PR's own events (a
// monorepo) or the docs repository's dispatch, re-runs of any of them, the agent's pass ending
// while nothing runs, 429 and 500 on sends, 500 on the job's reads, a refused GitHub read, two
// projects in one repository (two steps of the same job), and two runs of different concurrency
// groups in flight at once, their requests let through one at a time in an order drawn with the
// sequence (fixtures/together.ts). The promises, after every step:
// - no writer's request is sent twice, and an outsider's never;
// - no request is settled as sent that no accepted send carried;
// - nothing is sent to a job while it is at work (`wait: false`), from any run;
// - no use is spent on a push with nothing new when no request waits;
// - the thread's count of uses equals its accepted sends;
// - a project never has two jobs;
// - a status is pending only while the thread's record waits for its job;
// - no job's end is written over by another end;
// and once GitHub has run everything and the report runs have found every job's end: every
// writer's request sent exactly once (nothing owed dropped), and no status pending.
// 500 sequences run in `npm test`, in batches of 100; the seed is drawn once per run of the file
// and printed, so `FC_SEED=… npm run test:orders` replays the same sequences (`FC_PATH=…` one of
// them; `FC_TRACE=1` prints each run's log), and `FC_RUNS=10000 npm run test:orders` is the
// nightly-sized run. A sequence found once is kept below as an example.
import { afterAll, describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { createHash } from 'node:crypto';
import { startGitHubEmulator, type GitHubEmulator, type StoredComment } from '../emulators/github.js';
import { startEmulator, type Emulator } from '../emulators/server.js';
import { inputsFor, KEY, serviceTimeOnly } from '../__fixtures__/e2e.js';
import {
  APP,
  BOT,
  changedFile,
  DOCS,
  DOCS_TOKEN,
  pullRequestAt,
  pushEvent,
  runContext,
} from '../__fixtures__/github-world.js';
import { WORKFLOW_TOKEN, type RunOptions, type RunResult } from '../__fixtures__/runner.js';
import { gateTo, runBeside, Turns } from '../__fixtures__/together.js';
import { commentMarker } from '../src/github/comment.js';
import { readNote, type ThreadNote } from '../src/github/note.js';
import { JOB_WORDS, statusContext } from '../src/github/status.js';

/** Who asks: a writer, another writer, and someone without write access. */
const PEOPLE = ['octocat', 'mona', 'stranger'] as const;
type Person = (typeof PEOPLE)[number];
type Fault = 'ok' | '429' | '500' | 'read-500' | 'github-403';

type Step =
  | { t: 'ask'; who: Person }
  | { t: 'chat' }
  | { t: 'push'; files: boolean }
  | { t: 'merge' }
  | { t: 'end' }
  | { t: 'schedule' }
  | { t: 'docs' }
  | { t: 'run'; fault: Fault; group: number }
  | { t: 'together'; fault: Fault; beside: 'schedule' | 'docs' }
  | { t: 'overlap'; who: Person }
  | { t: 'rerun' };

const fault = fc.constantFrom<Fault>('ok', 'ok', 'ok', '429', '500', 'read-500', 'github-403');
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('ask' as const), who: fc.constantFrom(...PEOPLE) }) },
  { weight: 1, arbitrary: fc.constant({ t: 'chat' as const }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('push' as const), files: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ t: 'merge' as const }) },
  { weight: 3, arbitrary: fc.constant({ t: 'end' as const }) },
  { weight: 2, arbitrary: fc.constant({ t: 'schedule' as const }) },
  { weight: 1, arbitrary: fc.constant({ t: 'docs' as const }) },
  {
    weight: 5,
    arbitrary: fc.record({ t: fc.constant('run' as const), fault, group: fc.nat(2) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('together' as const),
      fault,
      beside: fc.constantFrom('schedule' as const, 'docs' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('overlap' as const), who: fc.constantFrom(...PEOPLE) }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'rerun' as const }) },
);

interface Sequence {
  wait: boolean;
  followUp: 'every-push' | 'at-merge';
  /** The docs PR opens in the code's own repository, whose events reach the workflow. */
  monorepo: boolean;
  /** A second step of the same job, for another docs project. */
  projects: 1 | 2;
  /**
   * The thread: a pull request's, or a branch pushed to directly (`main`: its job kept in commit
   * statuses and, without waiting, recorded as a git ref; its pushes in the schedule's group).
   */
  thread?: 'pull' | 'branch';
  steps: Step[];
  /** Whose request goes next while two runs are in flight, turn by turn (then the first run's). */
  turns: number[];
}

const sequence: fc.Arbitrary<Sequence> = fc.record({
  wait: fc.boolean(),
  followUp: fc.constantFrom('every-push' as const, 'at-merge' as const),
  monorepo: fc.boolean(),
  projects: fc.constantFrom(1 as const, 1 as const, 2 as const),
  thread: fc.constantFrom('pull' as const, 'pull' as const, 'pull' as const, 'branch' as const),
  steps: fc.array(step, { minLength: 1, maxLength: 12 }),
  // In streaks: one run getting well ahead of the other is where a lane's promises are tested.
  turns: fc
    .array(fc.tuple(fc.nat(1), fc.integer({ min: 1, max: 12 })), { maxLength: 8 })
    .map((streaks) => streaks.flatMap(([run, times]) => Array.from({ length: times }, () => run))),
});

/** The model's nth commit, as GitHub would name one (no run of digits a token shares). */
const shaOf = (n: number) => createHash('sha1').update(`commit ${n}`).digest('hex');

/** The groups of the recipe's `concurrency`, in the order the model looks at them. */
const GROUPS = ['thread', 'main', 'docs'] as const;
type Group = (typeof GROUPS)[number];

/** A run GitHub queued: what started it, its group, and the run id and attempt it runs as. */
interface QueuedRun {
  kind: 'push' | 'request' | 'merge' | 'schedule' | 'dispatch' | 'lane' | 'docs' | 'branch-push';
  group: Group;
  /** A branch's push: the head it moved from. */
  before?: number;
  runId: number;
  attempt: number;
  head: number;
  comment?: StoredComment;
}

const END_WORDS = [
  JOB_WORDS.completed,
  JOB_WORDS.noChanges,
  JOB_WORDS.failed,
  JOB_WORDS.archived,
  JOB_WORDS.lost,
];

/** The two projects' steps: the second is the same job's next step (its own id, key and records). */
const PROJECTS = [
  { projectId: 'proj_docs', action: 'docs' },
  { projectId: 'proj_api', action: 'docs2' },
] as const;

async function playSequence(sequence: Sequence): Promise<void> {
  const gh = await startGitHubEmulator();
  const { pr, docsPr, docsLink } = worldOf(gh, sequence.monorepo);
  const accepted = new Map<string, string[]>(PROJECTS.map((p) => [p.projectId, []]));
  // Without waiting, a job's pass goes on until the model's `end`: the jobs whose pass ended, and
  // any follow-up the service took for a job still at work.
  const idle = new Set<string>();
  const sentToWork: string[] = [];
  const creates = new Map<string, number>(PROJECTS.map((p) => [p.projectId, 0]));
  const service = await startEmulator({
    apiKey: KEY,
    // Without waiting, a job works until the model's `end` step says its pass is over.
    activePolls: sequence.wait ? 0 : Number.MAX_SAFE_INTEGER,
    final: { status: 'completed', prLink: docsLink },
    onReply: (request, status) => {
      if (
        (request.route === 'create' || request.route === 'message') &&
        typeof status === 'number' &&
        status < 300 &&
        request.projectId
      ) {
        accepted.get(request.projectId)?.push((request.json as { prompt: string }).prompt);
        if (!sequence.wait && request.route === 'message' && request.jobId) {
          if (!idle.has(request.jobId)) sentToWork.push(request.jobId);
          idle.delete(request.jobId);
        }
        if (request.route === 'create')
          creates.set(request.projectId, (creates.get(request.projectId) ?? 0) + 1);
      }
    },
  });
  let turnsTaken = 0;
  const turns = new Turns((among) => (sequence.turns[turnsTaken++] ?? 0) % among);
  const gates = await Promise.all([gateTo(gh.apiUrl, turns), gateTo(service.url, turns)]);
  try {
    await model(sequence, {
      gh,
      service,
      pr,
      docsPr,
      docsLink,
      accepted,
      creates,
      idle,
      sentToWork,
      turns,
      apiUrl: gates[0].url,
      baseUrl: gates[1].url,
    });
    expect(gh.violations).toEqual([]);
    expect(service.violations).toEqual([]);
  } finally {
    await Promise.all([...gates.map((g) => g.close()), gh.close(), service.close()]);
  }
}

/**
 * The repositories: acme/app's pull request, whose writers are octocat and mona, and the docs PR
 * the jobs open — in acme/app (a monorepo, opened by the service's app) or in acme/docs.
 */
function worldOf(gh: GitHubEmulator, monorepo: boolean) {
  // `contents: write`, as the recipe without waiting asks: a branch's job left at work is a git ref.
  gh.grant(WORKFLOW_TOKEN, { login: BOT, type: 'Bot', read: [APP], write: [APP], contents: [APP] });
  gh.grant(DOCS_TOKEN, { login: 'docs-app[bot]', type: 'Bot', read: [DOCS], write: [DOCS] });
  gh.collaborator(APP, 'octocat', 'write');
  gh.collaborator(APP, 'mona', 'write');
  gh.workflow(APP, 'docs.yml', { inputs: ['docs-agent-thread'] });
  const pr = gh.thread(APP);
  const docsPr = monorepo ? gh.thread(APP, { opener: 'docs-service[bot]' }) : gh.thread(DOCS);
  return { pr, docsPr, docsLink: `${gh.serverUrl}/${monorepo ? APP : DOCS}/pull/${docsPr.number}` };
}

interface World extends ReturnType<typeof worldOf> {
  gh: GitHubEmulator;
  service: Emulator;
  /** Each project's accepted sends' prompts, and its accepted creates. */
  accepted: Map<string, string[]>;
  creates: Map<string, number>;
  /** Jobs whose pass the model ended, and the jobs a follow-up was sent to while at work. */
  idle: Set<string>;
  sentToWork: string[];
  turns: Turns;
  /** Where the runs reach GitHub's API and the service: through the gates. */
  apiUrl: string;
  baseUrl: string;
}

async function model(sequence: Sequence, w: World): Promise<void> {
  const { gh, service, accepted, pr, docsPr, docsLink } = w;
  const { wait, followUp, monorepo } = sequence;
  const branch = sequence.thread === 'branch';
  const projects = PROJECTS.slice(0, sequence.projects);

  let nextRunId = 1000;
  let head = 1;
  let merged = false;
  let last: QueuedRun | undefined;
  let dispatchesSeen = 0;
  /** The runs that failed, newest last: GitHub's "Re-run failed jobs" runs them again. */
  const failed: QueuedRun[] = [];
  const queues = new Map<Group, QueuedRun[]>(GROUPS.map((g) => [g, []]));
  const pushed = new Map<number, boolean>([[1, true]]);
  const asked: { comment: StoredComment; who: Person }[] = [];
  const touched = new Set<number>([1]);
  let asks = 0;

  const context = (p: (typeof PROJECTS)[number]) =>
    statusContext(runContext({ action: p.action }), { baseUrl: w.baseUrl, projectId: p.projectId });
  const marker = (p: (typeof PROJECTS)[number]) =>
    commentMarker(runContext({ action: p.action }), {
      baseUrl: w.baseUrl,
      projectId: p.projectId,
      thread: true,
    });

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

  const enqueue = (run: Omit<QueuedRun, 'runId' | 'attempt'> & Partial<QueuedRun>) => {
    // `queue: max`: GitHub runs every queued run of a group, in order.
    queues.get(run.group)?.push({ runId: nextRunId++, attempt: 1, ...run });
  };
  /** A re-run: the same run, its next attempt (GitHub numbers a run's attempts from 1). */
  const attempts = new Map<number, number>();
  const rerun = (run: QueuedRun) => {
    const attempt = Math.max(run.attempt, attempts.get(run.runId) ?? 1) + 1;
    attempts.set(run.runId, attempt);
    enqueue({ ...run, attempt });
  };
  const ask = (who: Person) => {
    const text = `request-${++asks}`;
    const comment = gh.addComment(APP, pr.number, { login: who, body: `/docs ${text}` });
    asked.push({ comment, who });
    // The workflow's `if:` lets only comments that hold /docs in.
    enqueue({ kind: 'request', group: 'thread', head, comment });
  };

  const eventOf = (run: QueuedRun): RunOptions['event'] => {
    switch (run.kind) {
      case 'request': {
        const c = run.comment as StoredComment;
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
      case 'schedule':
        return { name: 'schedule', payload: { schedule: '17 * * * *' } };
      case 'dispatch':
        return { name: 'workflow_dispatch', payload: { inputs: {} } };
      case 'lane':
        return { name: 'workflow_dispatch', payload: { inputs: { 'docs-agent-thread': String(pr.number) } } };
      case 'docs':
        return {
          name: 'pull_request',
          payload: {
            action: 'synchronize',
            number: docsPr.number,
            pull_request: {
              number: docsPr.number,
              user: { login: 'docs-service[bot]', type: 'Bot' },
              head: { repo: { full_name: APP }, sha: docsPr.headSha },
              base: { repo: { full_name: APP } },
            },
          },
        };
      case 'branch-push':
        return pushEvent(shaOf(run.head), { before: shaOf(run.before ?? 1) });
      case 'push':
      case 'merge': {
        const event = pullRequestAt(
          pr.number,
          shaOf(run.head),
          run.kind === 'merge' ? 'closed' : 'synchronize',
        );
        if (run.kind === 'push') return event;
        return {
          ...event,
          payload: { ...event.payload, pull_request: { ...event.payload.pull_request, merged: true } },
        };
      }
    }
  };
  const options = (run: QueuedRun, p: (typeof PROJECTS)[number]): RunOptions => ({
    inputs: inputsFor(
      { ...service, url: w.baseUrl },
      {
        projectId: p.projectId,
        thread: 'true',
        status: 'true',
        context: 'auto',
        trigger: '/docs',
        followUp,
        wait: String(wait),
        ...(monorepo ? {} : { docsToken: DOCS_TOKEN }),
        timeout: '30m',
      },
    ),
    env: {
      GITHUB_API_URL: w.apiUrl,
      GITHUB_SERVER_URL: gh.serverUrl,
      GITHUB_REPOSITORY: APP,
      GITHUB_ACTION: p.action,
      GITHUB_RUN_ID: String(run.runId),
      GITHUB_RUN_ATTEMPT: String(run.attempt),
    },
    event: eventOf(run),
  });

  /** How many of `project`'s accepted sends carried the request. */
  const sentTimes = (projectId: string, c: StoredComment) => {
    const text = c.body.slice('/docs '.length);
    return (accepted.get(projectId) ?? []).filter((prompt) => new RegExp(`\\b${text}\\b`).test(prompt))
      .length;
  };
  const owed = (projectId: string) =>
    asked.filter((a) => a.who !== 'stranger' && sentTimes(projectId, a.comment) === 0);
  const ledger = (p: (typeof PROJECTS)[number]): ThreadNote | undefined =>
    readNote(pr.comments.find((c) => c.body.startsWith(marker(p)))?.body ?? '');

  /** Whether any push after head `from`, up to head `to`, changed a file. */
  const changedSince = (from: number, to: number) => {
    for (let n = from + 1; n <= to; n++) if (pushed.get(n)) return true;
    return false;
  };
  const headNumber = (sha: string | undefined) =>
    sha === undefined
      ? undefined
      : Array.from({ length: head }, (_, i) => i + 1).find((n) => shaOf(n) === sha);

  /** The service and GitHub as a step's fault has them, for one step of the model. */
  const meet = (f: Fault) => {
    if (f === '429')
      for (const route of ['create', 'message'] as const)
        service.script(route, {
          status: 429,
          headers: { 'retry-after': '7200' },
          json: { error: 'Rate limit' },
        });
    if (f === '500')
      for (const route of ['create', 'message'] as const)
        service.script(route, { status: 500, json: { error: 'Internal error' } });
    // More than a read's retries: the run cannot read the job at all.
    if (f === 'read-500')
      service.script(
        'get',
        ...Array.from({ length: 8 }, () => ({ status: 500, json: { error: 'Internal error' } })),
      );
    if (f === 'github-403')
      gh.fail('listComments', { status: 403, message: 'Resource not accessible by integration' });
  };
  const forget = () => {
    // What the run did not meet goes: the next run meets the service and GitHub as usual.
    for (const route of ['create', 'message', 'get'] as const) service.unscript(route);
    gh.unfail('listComments');
  };

  /** One run's steps, one after another, as a job runs them. */
  const steps = async (run: QueuedRun): Promise<RunResult[]> => {
    const results: RunResult[] = [];
    for (const p of projects) {
      const result = await runBeside(options(run, p), serviceTimeOnly());
      if (process.env.FC_TRACE)
        console.log(`${run.kind} ${run.runId}.${run.attempt} ${p.projectId}\n${result.stdout}`);
      results.push(result);
    }
    return results;
  };

  /** After a run: the lanes it dispatched join the thread's group; a failed one may be re-run. */
  const ran = (run: QueuedRun, results: RunResult[]) => {
    last = run;
    if (results.some((r) => r.code !== 0)) failed.push(run);
    touched.add(run.head);
    touched.add(head);
    const dispatched = gh.dispatches(APP);
    for (const d of dispatched.slice(dispatchesSeen)) {
      expect(d.inputs).toEqual({ 'docs-agent-thread': String(pr.number) });
      enqueue({ kind: 'lane', group: 'thread', head });
    }
    dispatchesSeen = dispatched.length;
  };

  const playAlone = async (run: QueuedRun, f: Fault, whoOverlaps?: Person) => {
    const before = new Map(projects.map((p) => [p.projectId, accepted.get(p.projectId)?.length ?? 0]));
    const owedBefore = projects.map((p) => owed(p.projectId).length).reduce((a, b) => a + b, 0);
    // Each project's job last looked at its own head.
    const seenAt = new Map(projects.map((p) => [p.projectId, headNumber(ledger(p)?.head)]));
    meet(f);
    const sends = () => service.requests.filter((r) => r.route === 'create' || r.route === 'message').length;
    const sendsAsked = sends();
    const running = steps(run);
    if (whoOverlaps) {
      // A request comes while the run works: once the service has its send, or the run is over.
      let done = false;
      void running.then(() => (done = true));
      while (!done && sends() === sendsAsked) await new Promise((resolve) => setImmediate(resolve));
      ask(whoOverlaps);
    }
    const results = await running;
    forget();
    ran(run, results);
    for (const [i, p] of projects.entries()) {
      const spent = (accepted.get(p.projectId)?.length ?? 0) - (before.get(p.projectId) ?? 0);
      expect(Number(results[i]?.outputs.uses ?? '0')).toBe(spent);
      // No use on a push with nothing new when no request waited (one asked while the run
      // worked may go with a later step's send).
      const at = seenAt.get(p.projectId);
      if (
        run.kind === 'push' &&
        owedBefore === 0 &&
        !whoOverlaps &&
        at !== undefined &&
        !changedSince(at, run.head)
      )
        expect(spent).toBe(0);
    }
  };

  const playTogether = async (runs: QueuedRun[], f: Fault) => {
    meet(f);
    for (const run of runs) w.turns.enter(String(run.runId));
    const results = await Promise.all(
      runs.map(async (run) => {
        try {
          return await steps(run);
        } finally {
          w.turns.leave(String(run.runId));
        }
      }),
    );
    forget();
    if (process.env.FC_TRACE)
      console.log(`together: ${runs.map((r) => r.runId).join(' and ')}, turns ${w.turns.story.join(' ')}`);
    w.turns.story.splice(0);
    for (const [i, run] of runs.entries()) ran(run, results[i] ?? []);
  };

  /** A status's history on one commit and context, oldest first. */
  const history = (sha: string, context: string) =>
    gh
      .statuses(APP, sha)
      .filter((s) => s.context === context && s.creator === BOT)
      .reverse();
  /** A job's end as the service told it (an overdue mark, a skip or a run's own stop is none). */
  const isEnd = (description: string | null) =>
    END_WORDS.some((word) => (description ?? '').startsWith(`${word}:`));
  /** What an end says, without the run that wrote it: its word and its job. */
  const endOf = (description: string | null) => (description ?? '').replace(/ · run \d+.*$/s, '');

  /** The promises that hold after every step; `atRest`: GitHub ran everything and every end was found. */
  const check = (atRest: boolean) => {
    // Nothing sent to a job while it is at work, from any run.
    expect(w.sentToWork).toEqual([]);
    for (const p of projects) {
      const note = ledger(p);
      // Each writer's request in at most one accepted send (exactly one at rest); an outsider's in none.
      for (const { comment, who } of asked) {
        const times = sentTimes(p.projectId, comment);
        if (who === 'stranger') expect([p.projectId, who, times]).toEqual([p.projectId, who, 0]);
        else if (atRest)
          expect([p.projectId, who, comment.id, times]).toEqual([p.projectId, who, comment.id, 1]);
        else expect(times).toBeLessThanOrEqual(1);
      }
      // The thread's count equals its accepted sends (a branch counts in its statuses, with
      // `budget`); never two jobs.
      if (!branch)
        expect([p.projectId, note?.uses ?? 0]).toEqual([p.projectId, accepted.get(p.projectId)?.length ?? 0]);
      expect(w.creates.get(p.projectId) ?? 0).toBeLessThanOrEqual(1);
      // No request settled as sent that no accepted send carried.
      for (const entry of note?.requests?.settled ?? [])
        if (!entry.refused)
          for (const id of entry.ids) {
            const c = asked.find((a) => a.comment.id === id)?.comment;
            expect(c && sentTimes(p.projectId, c)).toBeGreaterThan(0);
          }
      for (const n of touched) {
        const sha = shaOf(n);
        const written = history(sha, context(p));
        const newest = written.at(-1);
        // Pending only while the thread's record waits for the job (whose end a run will write).
        if (newest?.state === 'pending') {
          expect([sha, context(p), atRest]).toEqual([sha, context(p), false]);
          // A branch's record is its status (and its git ref); a pull request's, the kept comment.
          if (!branch) expect(note?.waiting?.status).toEqual({ sha, context: context(p) });
        }
        // No end written over: after a job's end, only a new pass (pending) or the same end; and
        // no green check naming the job turned red by a run's own stop.
        for (let i = 1; i < written.length; i++) {
          const [before, after] = [written[i - 1], written[i]];
          if (!before || !after || after.state === 'pending') continue;
          // A green check that names the job (a skip: the job has the commit) is not turned red.
          const named = /: job \S+ · run \d+/.test(before.description ?? '');
          const stopped =
            before.state === 'success' && named && after.state === 'error' && !isEnd(after.description);
          if (!isEnd(before.description) && !stopped) continue;
          // The same end may be written again (a re-run that resumes the job names its own run).
          expect([sha, context(p), after.state, endOf(after.description)]).toEqual([
            sha,
            context(p),
            before.state,
            endOf(before.description),
          ]);
        }
      }
    }
  };

  /** A report run: the schedule's, or the docs PR's own event's (a monorepo) or the docs repository's dispatch. */
  const report = (on: 'schedule' | 'docs') =>
    enqueue(
      on === 'schedule'
        ? { kind: 'schedule', group: 'main', head }
        : monorepo
          ? { kind: 'docs', group: 'docs', head }
          : { kind: 'dispatch', group: 'main', head },
    );
  const nonEmpty = () => GROUPS.filter((g) => (queues.get(g)?.length ?? 0) > 0);
  const take = (g: Group) => queues.get(g)?.shift() as QueuedRun;
  const endPasses = () => {
    for (const job of service.jobs.values())
      if (job.status === 'active') {
        Object.assign(job, { status: 'completed', prLink: docsLink });
        w.idle.add(job.id);
      }
  };

  for (const s of sequence.steps) {
    switch (s.t) {
      // A branch has no comments and no merge.
      case 'ask':
        if (!branch) ask(s.who);
        break;
      case 'chat':
        if (!branch) gh.addComment(APP, pr.number, { login: 'octocat', body: 'Looks good to me' });
        break;
      case 'push':
        if (branch) {
          // A push straight to `main`: its run is in the branch's group, the schedule's.
          head++;
          pushed.set(head, s.files);
          compare(head);
          // `main`'s history, newest first: where a push's run walks back to its job's status.
          gh.history(
            APP,
            Array.from({ length: head }, (_, i) => shaOf(head - i)),
          );
          enqueue({ kind: 'branch-push', group: 'main', head, before: head - 1 });
          break;
        }
        if (merged) break;
        head++;
        pushed.set(head, s.files);
        pr.headSha = shaOf(head);
        if (s.files) pr.files.push(changedFile(`src/f${head}.ts`));
        compare(head);
        enqueue({ kind: 'push', group: 'thread', head });
        break;
      case 'merge':
        if (merged || branch) break;
        merged = true;
        pr.merged = true;
        enqueue({ kind: 'merge', group: 'thread', head });
        break;
      case 'end':
        endPasses();
        break;
      case 'schedule':
      case 'docs':
        if (!wait) report(s.t);
        break;
      case 'run':
      case 'overlap': {
        const groups = nonEmpty();
        const group = groups[(s.t === 'run' ? s.group : 0) % Math.max(1, groups.length)];
        if (group)
          await playAlone(
            take(group),
            s.t === 'run' ? s.fault : 'ok',
            s.t === 'overlap' && !branch ? s.who : undefined,
          );
        break;
      }
      case 'together': {
        // A report run starts while a run of the thread is due: the two are in flight at once.
        if (!wait && nonEmpty().length < 2) report(s.beside);
        const groups = nonEmpty();
        if (groups.length >= 2) await playTogether(groups.slice(0, 2).map(take), s.fault);
        else if (groups[0]) await playAlone(take(groups[0]), s.fault);
        break;
      }
      case 'rerun':
        if (last) rerun(last);
        break;
    }
    check(false);
  }

  // GitHub runs everything queued; the passes end; a report run finds each end and hands anything
  // owed to the thread's lane, which sends it; a run that failed is re-run, as its error asks;
  // until nothing is left to do. No new event comes: what a run left owed, a run of these sends.
  for (let round = 0; round < 8; round++) {
    endPasses();
    for (let group = nonEmpty()[0]; group; group = nonEmpty()[0]) await playAlone(take(group), 'ok');
    check(false);
    if (!wait) {
      enqueue({ kind: 'schedule', group: 'main', head });
      for (let group = nonEmpty()[0]; group; group = nonEmpty()[0]) await playAlone(take(group), 'ok');
      check(false);
    }
    const pending = [...touched].some((n) =>
      projects.some((p) => history(shaOf(n), context(p)).at(-1)?.state === 'pending'),
    );
    const quiet =
      !pending &&
      projects.every((p) => owed(p.projectId).length === 0 && !ledger(p)?.waiting) &&
      [...service.jobs.values()].every((job) => job.status !== 'active');
    if (quiet) break;
    for (const run of failed.splice(0)) rerun(run);
  }
  check(true);
}

describe('sequences the exploration found, kept as examples', () => {
  it.each<[string, Sequence]>([
    [
      'a push with nothing new, then a request while the next push runs',
      {
        wait: true,
        followUp: 'every-push',
        monorepo: false,
        projects: 1,
        turns: [],
        steps: [
          { t: 'push', files: false },
          { t: 'run', fault: 'ok', group: 0 },
          { t: 'push', files: false },
          { t: 'overlap', who: 'octocat' },
        ],
      },
    ],
    [
      // A report run that sent what the thread is owed itself, beside the thread's own run, sent
      // it to a job the thread's run had just put back to work.
      "a report run and the thread's run at once, after the pass ended with requests queued",
      {
        wait: false,
        followUp: 'every-push',
        monorepo: false,
        projects: 1,
        turns: [1, 1, 1, 1, 1, 1, 0],
        steps: [
          { t: 'ask', who: 'octocat' },
          { t: 'run', fault: 'ok', group: 0 },
          { t: 'ask', who: 'mona' },
          { t: 'run', fault: 'ok', group: 0 },
          { t: 'ask', who: 'octocat' },
          { t: 'end' },
          { t: 'together', fault: 'ok', beside: 'schedule' },
        ],
      },
    ],
    [
      // Seen dropping what was queued: a report run that handed nothing to the lane.
      'requests queued while the job works, then the pass ends',
      {
        wait: false,
        followUp: 'every-push',
        monorepo: false,
        projects: 1,
        turns: [],
        steps: [
          { t: 'ask', who: 'octocat' },
          { t: 'overlap', who: 'octocat' },
          { t: 'together', fault: 'ok', beside: 'schedule' },
        ],
      },
    ],
    [
      // Seen: another project's step took the thread's label off while this one's job worked.
      'two projects, a request while the run works',
      {
        wait: false,
        followUp: 'every-push',
        monorepo: false,
        projects: 2,
        turns: [],
        steps: [
          { t: 'ask', who: 'octocat' },
          { t: 'overlap', who: 'octocat' },
        ],
      },
    ],
    [
      // Seen: a push's run sent the queued requests to the job while it worked.
      'a push while the job works and a request is queued',
      {
        wait: false,
        followUp: 'every-push',
        monorepo: false,
        projects: 1,
        turns: [],
        steps: [
          { t: 'ask', who: 'octocat' },
          { t: 'overlap', who: 'octocat' },
          { t: 'push', files: false },
          { t: 'run', fault: 'ok', group: 0 },
          { t: 'together', fault: 'ok', beside: 'schedule' },
          { t: 'push', files: false },
        ],
      },
    ],
    [
      // Seen: the re-run of an older run left the job at work, and its record was lost.
      'a merge whose run cannot read the job, re-run after a later request',
      {
        wait: false,
        followUp: 'at-merge',
        monorepo: false,
        projects: 1,
        turns: [],
        steps: [
          { t: 'push', files: false },
          { t: 'run', fault: 'ok', group: 0 },
          { t: 'merge' },
          { t: 'ask', who: 'octocat' },
          { t: 'run', fault: 'read-500', group: 0 },
          { t: 'docs' },
        ],
      },
    ],
    [
      // Seen: a branch's push sent to the job at work, reading only the held push's status.
      'a branch: pushes while its job works',
      {
        wait: false,
        followUp: 'every-push',
        monorepo: false,
        projects: 1,
        thread: 'branch',
        turns: [],
        steps: [
          { t: 'push', files: false },
          { t: 'push', files: false },
          { t: 'push', files: true },
          { t: 'end' },
        ],
      },
    ],
    [
      // Seen: the re-run of an older push, whose create met a 500, started a second job.
      'a branch: an older push re-run after a newer one started the job',
      {
        wait: false,
        followUp: 'every-push',
        monorepo: false,
        projects: 1,
        thread: 'branch',
        turns: [],
        steps: [
          { t: 'push', files: false },
          { t: 'together', fault: '500', beside: 'schedule' },
          { t: 'push', files: false },
        ],
      },
    ],
    [
      // Found by the nightly run: a re-run that resumed a branch's job, its read refused, wrote
      // its own stop over the job's end.
      'a branch: a re-run that resumes the job, whose read fails',
      {
        wait: false,
        followUp: 'every-push',
        monorepo: false,
        projects: 1,
        thread: 'branch',
        turns: [],
        steps: [
          { t: 'push', files: false },
          { t: 'schedule' },
          { t: 'together', fault: 'ok', beside: 'schedule' },
          { t: 'rerun' },
          { t: 'end' },
          { t: 'run', fault: 'ok', group: 0 },
          { t: 'run', fault: 'ok', group: 0 },
          { t: 'together', fault: 'read-500', beside: 'schedule' },
          { t: 'run', fault: 'ok', group: 0 },
        ],
      },
    ],
    [
      // Found by the nightly run: a re-run of the first request, resuming the job another run had
      // put back to work, replaced that run's record and left its pending status to no one.
      'a re-run that resumes the job a later run put back to work',
      {
        wait: false,
        followUp: 'every-push',
        monorepo: false,
        projects: 1,
        thread: 'pull',
        turns: [],
        steps: [
          { t: 'ask', who: 'octocat' },
          { t: 'overlap', who: 'octocat' },
          { t: 'push', files: false },
          { t: 'rerun' },
          { t: 'together', fault: 'ok', beside: 'schedule' },
          { t: 'push', files: false },
        ],
      },
    ],
    [
      // Found by the nightly run: a branch's push whose read of the job at work met a 500 sent to it.
      'a branch: a push whose read of the job at work fails',
      {
        wait: false,
        followUp: 'at-merge',
        monorepo: false,
        projects: 2,
        thread: 'branch',
        turns: [],
        steps: [
          { t: 'push', files: false },
          { t: 'overlap', who: 'octocat' },
          { t: 'push', files: false },
          { t: 'together', fault: 'read-500', beside: 'schedule' },
          { t: 'schedule' },
        ],
      },
    ],
    [
      // Found by the second nightly run: the re-run of the run that started the pass, resuming its
      // job, wrote a pending status on the pull request's newer head that no record pointed at.
      'a re-run of the request that started the pass, after a push',
      {
        wait: false,
        followUp: 'every-push',
        monorepo: false,
        projects: 1,
        thread: 'pull',
        turns: [],
        steps: [
          { t: 'ask', who: 'octocat' },
          { t: 'overlap', who: 'octocat' },
          { t: 'push', files: false },
          { t: 'rerun' },
          { t: 'run', fault: 'ok', group: 0 },
          { t: 'run', fault: 'ok', group: 0 },
          { t: 'together', fault: 'ok', beside: 'schedule' },
          { t: 'push', files: false },
        ],
      },
    ],
    [
      // Found once report runs handed every ended job to the lane: two projects' report steps start
      // two lane runs; the second, finding nothing waiting, sent the merge again under at-merge
      // (the merge's own run had started the job, on that head), and again on every later lane run.
      'two projects, a merge that started both jobs: each lane run after the first sends nothing',
      {
        wait: false,
        followUp: 'at-merge',
        monorepo: false,
        projects: 2,
        thread: 'pull',
        turns: [],
        steps: [{ t: 'merge' }],
      },
    ],
  ])('%s', async (_, s) => {
    await expect(playSequence(s)).resolves.toBeUndefined();
  });
});

describe('a sequence given', () => {
  // FC_SEQUENCE='{"wait":false,…}' plays one sequence as a failure printed it, with its runs' logs
  // under FC_TRACE=1; without it there is nothing to replay.
  const given = process.env.FC_SEQUENCE;
  if (given)
    it('replays FC_SEQUENCE', async () => {
      await expect(playSequence(JSON.parse(given) as Sequence)).resolves.toBeUndefined();
    });
});

describe('the thread keeps its promises in every order GitHub runs the runs', () => {
  const runs = Number(process.env.FC_RUNS ?? 500);
  // One seed, printed: the same sequences on every machine and every run (FC_SEED picks others).
  const seed = Number(process.env.FC_SEED ?? 20_261_206);
  const path = process.env.FC_PATH;
  // Batches of 25, each its own test with its own seed drawn from the file's. A path given
  // replays that one sequence.
  const batches = path ? 1 : Math.max(1, Math.ceil(runs / 25));
  const each = Math.ceil(runs / batches);
  console.log(`run.orders: FC_SEED=${seed} (${runs} sequences)`);
  // The runs play in this process and share its environment, so two batches must never play at
  // once. jest gives a batch generous real time (runs and emulators talk over loopback): 25
  // sequences take about 4 s on two idle cores, and ten times that with a whole second test suite
  // beside them. A batch jest gave up on is told to stop by the next batch's start, not by a timer:
  // it plays no more sequences, and the next batch starts once the one in play has ended.
  const BATCH_MS = 600_000;
  let previous: Promise<unknown> = Promise.resolve();
  let stopPrevious = () => {};
  // The last batch too, if jest gave up on it: nothing of it outlives the file.
  afterAll(async () => {
    stopPrevious();
    await previous;
  });

  it.each(Array.from({ length: batches }, (_, i) => i + 1))(
    `explores ${each} generated sequences (batch %i of ${batches})`,
    async (batch) => {
      stopPrevious();
      await previous;
      let stopped = false;
      stopPrevious = () => (stopped = true);
      const explored = fc.assert(
        fc.asyncProperty(sequence, async (s) => {
          if (!stopped) await playSequence(s);
        }),
        {
          numRuns: each,
          seed: path ? seed : seed + batch - 1,
          ...(path ? { path } : {}),
          endOnFailure: false,
        },
      );
      previous = explored.catch(() => undefined);
      // fast-check keeps the promise that failed as the cause: its message says which.
      await expect(
        explored.catch((error: Error) => {
          throw new Error(`${error.message}\n${(error.cause as Error | undefined)?.message ?? ''}`);
        }),
      ).resolves.toBeUndefined();
    },
    BATCH_MS,
  );
});
