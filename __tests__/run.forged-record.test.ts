// A waiting record edited by someone else who writes as the action's identity (GITHUB_TOKEN is
// every workflow's of the repository), played with run() in this process against both emulators:
// what the record asks is done only where the step itself would have done it — its status in the
// step's own context on a commit that carries the step's status for the job, labels and reviewers
// the inputs would take — and none of its text reaches the log as a workflow command. The job's
// end is still written on the thread.
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
import { APP, BOT, pushTo, sha } from '../__fixtures__/github-world.js';
import type { RunResult } from '../__fixtures__/runner.js';
import type { Waiting } from '../src/core/ports.js';
import { noteLine, readNote } from '../src/github/note.js';
import type { RunDeps } from '../src/main.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();
const at = (ms = 0): RunDeps => ({ ...serviceTimeOnly(), clock: new VirtualClock(1_700_000_000_000 + ms) });

const SCHEDULE = { name: 'schedule', payload: { schedule: '17 * * * *' } };
/** What the forger puts in the record: workflow commands, each on a line of its own if printed raw. */
const FORGED_LABELS = ['\n::error::forged label', '::add-mask::x\n::set-output name=prLink::forged', '..'];
const FORGED_REVIEWERS = ['acme/team/../../forged'];

/**
 * A thread whose opening run (the recipe without waiting, labels `docs`) left its job at work on
 * sha(2), its record then rewritten by `forge`.
 */
async function forgedThread(forge: (waiting: Waiting, pendingContext: string) => Partial<Waiting>) {
  const world = await docsThread(github, emulator);
  const { gh, pr, service, step } = world;
  service.script('get', { job: { status: 'active' } });
  const opening = await play(step(pushTo(pr, sha(2), 'opened'), { wait: 'false', labels: 'docs' }), at());
  service.unscript('get');
  const [pending] = gh.statuses(APP, sha(2));
  const comment = pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'));
  const note = readNote(comment?.body ?? '');
  if (!comment || !note?.waiting || !pending) throw new Error('the opening run left no waiting record');
  const waiting = { ...note.waiting, ...forge(note.waiting, pending.context) };
  comment.body = comment.body.replace(
    /<!-- agent-job-action:note [\w-]+ -->/,
    noteLine({ ...note, waiting }),
  );
  expect(readNote(comment.body)?.waiting).toEqual(waiting);
  const kept = () => pr.comments.find((c) => c.body.startsWith('<!-- agent-job-action:'))?.body ?? '';
  return { ...world, opening, pending, kept, run: note.waiting.run };
}

/**
 * The lines of the log that the runner would read as workflow commands and that carry the
 * record's text: only the action's own warning, which quotes it.
 */
function commandsFromRecord(result: RunResult): string[] {
  return result.stdout
    .split(/\r\n|\r|\n/)
    .filter((line) => line.trimStart().startsWith('::') && line.includes('forged'))
    .filter((line) => !line.trimStart().startsWith('::warning::The record of agent job'));
}

/**
 * The run's warnings about the record: the one that says what was left out. No other warning
 * carries the record's text.
 */
function aboutRecord(result: RunResult): string[] {
  const all = warnings(result);
  expect(all.filter((w) => w.includes('forged') && !w.startsWith('The record of agent job'))).toEqual([]);
  return all.filter((w) => w.startsWith('The record of agent job'));
}

describe('a forged waiting record', () => {
  it("naming another context (a required check) and another commit: a report run writes neither, adds no label, prints no command, and still writes the job's end on the thread", async () => {
    const { gh, pr, docsPr, step, kept } = await forgedThread(() => ({
      status: { sha: sha(7), context: 'ci/required' },
      labels: FORGED_LABELS,
      reviewers: FORGED_REVIEWERS,
    }));
    const before = gh.statuses(APP, sha(2));

    // The recipe without waiting: the thread step itself, on the schedule.
    const swept = await play(step(SCHEDULE, { wait: 'false' }), at(10 * 60_000));
    expect(swept.code).toBe(0);
    expect(JSON.parse(swept.outputs.reported ?? '')).toMatchObject([
      { thread: pr.number, status: 'completed' },
    ]);
    expect(gh.statuses(APP, sha(7))).toEqual([]);
    expect(gh.statuses(APP, sha(2))).toEqual(before);
    expect(gh.requests.filter((r) => r.route === 'createStatus').map((r) => r.json)).not.toContainEqual(
      expect.objectContaining({ context: 'ci/required' }),
    );
    expect(docsPr.labels).toEqual([]);
    expect(docsPr.reviewers).toEqual([]);
    expect(commandsFromRecord(swept)).toEqual([]);
    expect(swept.commands.filter((c) => c.name === 'error' || c.name === 'set-output')).toEqual([]);
    expect(aboutRecord(swept)).toEqual([
      expect.stringContaining(
        'left out: its commit status in the context "ci/required", which is not this step\'s',
      ),
    ]);
    expect(aboutRecord(swept)[0]).toContain('the labels "\\u000a::error::forged label"');
    // The end is still the thread's: its comment says it, its record and label are gone.
    expect(kept()).toContain('✅ **Completed**');
    expect(readNote(kept())?.waiting).toBeUndefined();
    expect(pr.labels).toEqual([]);
  });

  it("in the step's own context on a commit that carries no status of the step for the job: not written there", async () => {
    const { gh, docsPr, step, pending, opening, run } = await forgedThread((_, context) => ({
      status: { sha: sha(5), context },
    }));
    // Another pull request's head, where this step's status names another job.
    const theirs = gh.addStatus(APP, sha(5), {
      creator: BOT,
      context: pending.context,
      description: 'Working: job job_elsewhere · run 99',
      state: 'pending',
    });
    const swept = await play(step(SCHEDULE, { wait: 'false' }), at(10 * 60_000));
    expect(swept.code).toBe(0);
    expect(gh.statuses(APP, sha(5))).toEqual([theirs]);
    expect(aboutRecord(swept)).toEqual([
      `The record of agent job ${opening.outputs.jobId ?? ''}, which run ${run} left at work, asks for what this step would not do; left out: its commit status on ${sha(5).slice(0, 12)}, a commit that carries no status of this step for that job.`,
    ]);
    // What passes is done: the record's labels are the inputs'.
    expect(docsPr.labels).toEqual(['docs']);
  });

  it("sound in its status, forged in its labels: the thread's next run ends the step's own status and adds only the labels that pass", async () => {
    const { gh, pr, docsPr, docsLink, step, pending, kept } = await forgedThread(() => ({
      labels: ['docs', ...FORGED_LABELS],
      reviewers: FORGED_REVIEWERS,
    }));
    const next = await play(step(pushTo(pr, sha(3)), { followUp: 'at-merge' }), at(10 * 60_000));
    expect(next.code).toBe(0);
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'success',
      context: pending.context,
      target_url: docsLink,
    });
    expect(docsPr.labels).toEqual(['docs']);
    expect(docsPr.reviewers).toEqual([]);
    expect(commandsFromRecord(next)).toEqual([]);
    expect(warnings(next)).toEqual([
      expect.stringContaining('left out: the labels "\\u000a::error::forged label", '),
    ]);
    expect(readNote(kept())?.waiting).toBeUndefined();
    expect(pr.labels).toEqual([]);
  });
  it('a sound record is done whole, even where a later run of the step wrote over its status on that commit', async () => {
    const { gh, pr, docsPr, docsLink, step, pending, kept } = await forgedThread(() => ({}));
    // A run of the step on the same head that failed before any job, after the record was left.
    gh.addStatus(APP, sha(2), {
      creator: BOT,
      context: pending.context,
      description: 'Stopped before any job · run 500',
      state: 'error',
    });
    const swept = await play(step(SCHEDULE, { wait: 'false' }), at(10 * 60_000));
    expect(swept.code).toBe(0);
    expect(aboutRecord(swept)).toEqual([]);
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'success',
      context: pending.context,
      target_url: docsLink,
    });
    expect(docsPr.labels).toEqual(['docs']);
    expect(readNote(kept())?.waiting).toBeUndefined();
    expect(pr.labels).toEqual([]);
  });

  it("a separate report job (its own status context) ends the thread step's status in that step's context, where the step's status names the job", async () => {
    const { gh, pr, docsLink, step, pending, kept } = await forgedThread(() => ({}));
    const report = step(SCHEDULE, { wait: 'false' });
    // Another job of the workflow: GitHub names its steps' contexts apart.
    const swept = await play({ ...report, env: { ...report.env, GITHUB_JOB: 'report' } }, at(10 * 60_000));
    expect(swept.code).toBe(0);
    expect(aboutRecord(swept)).toEqual([]);
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'success',
      context: pending.context,
      target_url: docsLink,
    });
    expect(gh.statuses(APP, sha(2)).map((s) => s.context)).toEqual([pending.context, pending.context]);
    expect(readNote(kept())?.waiting).toBeUndefined();
    expect(pr.labels).toEqual([]);
  });
});
