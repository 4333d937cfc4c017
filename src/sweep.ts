// A report run, with no prompt of its own: a `sweep: true` step, or a thread's step that does not
// wait (`thread: true`, `wait: false`) on an event that belongs to no thread (a schedule, a run by
// hand, a dispatch from the docs repository). It finds every thread of the repository whose job a
// run left at work without waiting and reads each job once (a read costs no quota use; it never
// waits for a pass). It sends nothing: a report run is not in any thread's lane (the runs GitHub
// serializes in the thread's concurrency group). A thread whose job ended with nothing owed gets
// its end written here, once (the record read afresh just before). A thread owed something (what
// it asked while its job worked, a change pushed meanwhile) or whose job is overdue goes to its
// lane, as a `workflow_dispatch` naming the thread: the lane is about to send to the job and write
// a new record, and GitHub has no conditional write, so a write of the report run's own could land
// after it. On that dispatch (a lane run) the step is the thread's own run: it writes the end,
// then sends what is owed, as the thread's next event would. A branch's job is written where it
// waits (its commits' statuses, its git ref); a branch's next pass is always on a newer commit.
import * as core from '@actions/core';
import type { AgentJob } from './core/job.js';
import { outputLink } from './core/pull-request.js';
import { coreLog, describeThrown, failStep } from './core/log.js';
import type { FoundWaiting, GitHubSteps } from './core/sweep-ports.js';
import { label } from './core/untrusted.js';
import { howEnded, ownProject, owes, projectKey, waitingEnd } from './core/ledger.js';
import type { Waiting, WaitingNews } from './core/ports.js';
import { ServiceError } from './service/client.js';
import type { Accepted, LazyGitHub } from './accepted.js';
import { LANE_INPUT } from './core/dispatch-inputs.js';
import { asksOpen, sendOwed, type OwedDeps } from './send-owed.js';
import { handOn } from './hand-on.js';
import { setOutput } from './report/outputs.js';
import { writeSweepSummary, type SweptThread } from './report/summary.js';
import type { AgentClient } from './service/client.js';
import { ActionFailure } from './service/errors.js';

/** What a report run needs of the run: its setup, the service, its GitHub side, its step. */
export interface SweepDeps extends OwedDeps {
  client: Pick<AgentClient, 'getJob'>;
  github: LazyGitHub;
}

/**
 * The report run (or a lane run). Its outputs: `mode` and `status` `swept`, `uses` (a lane run's
 * follow-up for what was owed), and `reported`, the threads whose end it wrote (JSON). A report
 * run fails only when it could not look (no GitHub side, the waiting threads not listed); a
 * thread's own fault is a warning, and a later run reports it. A lane run is its thread's run: a
 * job it cannot read, or a send that fails, fails it.
 */
export async function sweep(deps: SweepDeps): Promise<void> {
  const { accepted, step } = deps;
  const { features } = accepted;
  const done: Swept = { reported: [], handedOff: [], atWork: 0, uses: 0 };
  try {
    const steps = await deps.github.load();
    if (!steps)
      throw new ActionFailure('A report run (sweep: true) needs the GitHub side, which did not load.');
    const { event } = accepted.context;
    // A dispatch naming a thread is that thread's own run (its thread step's, which is the lane): a
    // report step beside it (`sweep: true` without `thread`) would only hand the thread off again.
    if (features.lane === undefined && event.kind === 'dispatch' && event.lane !== undefined)
      coreLog.notice(
        `This run is #${label(event.lane)}'s thread's own (${LANE_INPUT}): its thread step reports and sends; this report step does nothing on it.`,
      );
    else if (features.lane === undefined && (features.docsAsk !== undefined || features.deployment)) {
      const handed = await handOn(steps, deps);
      if (handed !== undefined) done.handedOff.push(handed);
    } else if (features.lane === undefined) await report(steps, deps, done);
    else await laneRun(features.lane, steps, deps, done);
  } catch (error) {
    step.fail(error);
  }
  try {
    setOutput('mode', 'swept');
    setOutput('status', features.dryRun ? 'dry-run' : 'swept');
    setOutput('uses', String(done.uses));
    setOutput('reported', JSON.stringify(done.reported));
    if (done.preview) setOutput('previewUrl', done.preview);
  } catch (error) {
    step.fail(error);
  }
  await writeSweepSummary({
    reported: done.reported,
    handedOff: done.handedOff,
    uses: done.uses,
    atWork: done.atWork,
    serverUrl: accepted.context.serverUrl,
  }).catch((error: unknown) =>
    coreLog.warning(`Could not write the step summary: ${describeThrown(error)}.`),
  );
  if (step.failure) failStep(step.failure);
}

/**
 * What a report or lane run did: the threads whose end it wrote, those it handed to their lane,
 * the jobs still at work, its quota uses.
 */
interface Swept {
  reported: SweptThread[];
  handedOff: number[];
  atWork: number;
  uses: number;
  /** A lane run's: the preview of its thread's docs PR, as the record now holds it. */
  preview?: string;
}

/** The threads whose records are this project's: two projects in one repository never read each other's jobs. */
function ownRecords(found: FoundWaiting[], { inputs }: Accepted): FoundWaiting[] {
  const key = projectKey(inputs.baseUrl, inputs.projectId);
  return found.filter((f) => f.note.waiting && ownProject(f.note.waiting, key, f.own));
}

/** A report run: every waiting thread reported, or handed to its lane; then the branches' jobs left at work. */
async function report(steps: GitHubSteps, deps: SweepDeps, done: Swept): Promise<void> {
  const { accepted, step } = deps;
  const { signal } = step;
  const found = ownRecords(await listWaiting(steps, signal), accepted);
  coreLog.info(
    found.length === 0
      ? 'No thread of this repository is waiting for its agent job to be reported.'
      : `${found.length} thread${found.length === 1 ? ' is' : 's are'} waiting for their agent job to be reported: ${found.map((f) => `#${f.number}`).join(', ')}.`,
  );
  // One hand-off a thread, whichever of its steps' records asked for it.
  const handed = new Set<number>();
  for (const thread of found) {
    if (signal.aborted) return;
    // Several threads' lines, each folded under its own heading in the run's log.
    const several = found.length > 1;
    if (several) core.startGroup(`#${thread.number}: agent job ${label(thread.note.job)}`);
    try {
      const stands = await reportThread(
        thread,
        steps,
        deps,
        handed.has(thread.number) ? 'handed' : 'hand-off',
      );
      if (stands.kind === 'at-work') done.atWork++;
      if (stands.kind === 'handed') handed.add(thread.number);
      if (stands.swept) done.reported.push(stands.swept);
      // Its end was written before (only what is owed kept its record): what is owed goes to its lane.
      if (
        stands.kind === 'written' &&
        !accepted.features.dryRun &&
        !handed.has(thread.number) &&
        (await handOffOwed(thread, steps, deps))
      )
        handed.add(thread.number);
    } finally {
      if (several) core.endGroup();
    }
  }
  done.handedOff.push(...handed);
  if (signal.aborted) return;
  const branch = await reportBranches(steps, new Set(found.map((f) => f.note.job)), deps);
  done.reported.push(...branch.reported);
  done.atWork += branch.atWork;
}

/**
 * A lane run (a dispatch naming thread `number`), the thread's own run: its job reported, then
 * what the thread is owed sent — never to a job still at work, or one that could not be read.
 */
async function laneRun(number: number, steps: GitHubSteps, deps: SweepDeps, done: Swept): Promise<void> {
  const { accepted, step } = deps;
  const { pull, found: listed } = await steps.sweep.thread(number, step.signal).catch((error: unknown) => {
    throw new ActionFailure(`Could not read the thread of #${number}: ${describeThrown(error)}`);
  });
  const found = ownRecords(listed, accepted);
  const thread = found.find((f) => f.own) ?? found[0];
  coreLog.info(
    `This run is #${number}'s thread's own (${LANE_INPUT}): it reports the thread's agent job, if it waits for one, and sends what the thread is owed.`,
  );
  const { dryRun } = accepted.features;
  // The docs PR a hand-off names, or the one the record owes what was asked on: read there once
  // (only where its note names this thread), for its requests and its preview.
  const link = accepted.features.docsAsk ?? thread?.note.waiting?.docs;
  const docs = link ? await steps.sweep.docsAsks(link, number, step.signal) : undefined;
  const asks = accepted.inputs.trigger !== undefined ? docs : undefined;
  const preview = async () => {
    if (!docs || dryRun || step.signal.aborted) return;
    const url = await steps.sweep.linkPreview({ number, pull, marker: thread?.marker }, docs, step.signal);
    if (url) done.preview = url;
  };
  let record = thread;
  if (thread) {
    const stands = await reportThread(thread, steps, deps, 'write');
    if (stands.swept) done.reported.push(stands.swept);
    if (stands.kind !== 'ended' && stands.kind !== 'written') {
      if (stands.kind !== 'at-work') return;
      // Asked on the docs PR while the job works: the record owes it, and the run that writes the
      // job's end hands the thread off again. A record another run settled meanwhile (a report
      // run wrote the end of a job that owed nothing then) is gone: this run, in the lane, sends.
      const owing = asks && !dryRun && asksOpen(asks, thread.note, accepted.inputs);
      if (!owing || (await steps.sweep.oweDocs(thread, asks.link, step.signal))) {
        done.atWork++;
        await preview();
        return;
      }
      coreLog.info(
        `#${number}: its job's end was written meanwhile; what was asked on its docs pull request is sent.`,
      );
      record = undefined;
    }
  }
  if (!record && !asks) {
    coreLog.info(`No record of #${number}'s thread owes anything: nothing is sent.`);
    await preview();
    return;
  }
  if (dryRun || step.signal.aborted) return;
  const sent = await sendOwed({ number, pull }, record, steps, deps, asks);
  done.uses += sent.uses;
  // What was owed cannot go (held, or nothing left to play): the record owes it no more, or every
  // report run would hand the thread off again for nothing.
  if (record && sent.settled && owes(record.note)) await steps.sweep.settleOwed(record, step.signal);
  await preview();
}

/**
 * One waiting thread: its job read once, and what changed written once — the end (its record kept
 * while something is owed), or the overdue mark — by this run, or, on a report run (`hand-off`)
 * where the thread is owed something or the job is overdue, by the thread's lane (unless GitHub
 * refuses the hand-off, or this run handed the thread off already: `handed`). `written`: its end was written before this run; `ended`: this run (or
 * another meanwhile) wrote it, so what is owed may go; `handed`: the lane writes it and sends what
 * is owed; `at-work`: nothing may be sent; `unread`: nothing is known.
 */
async function reportThread(
  thread: FoundWaiting,
  steps: GitHubSteps,
  deps: SweepDeps,
  how: 'hand-off' | 'handed' | 'write',
): Promise<{ kind: 'written' | 'ended' | 'handed' | 'at-work' | 'unread'; swept?: SweptThread }> {
  const { accepted, step } = deps;
  const { signal, clock } = step;
  const waiting = thread.note.waiting as Waiting;
  const id = label(thread.note.job);
  // Its end is written already (only what is owed is left): nothing to read.
  if (waiting.ended) return { kind: 'written' };
  const read = await readWaitingJob(deps, thread.note.job, waiting, signal);
  if (read === 'unread') return { kind: 'unread' };
  const end = waitingEnd(waiting, read, clock.now());
  if (end.kind === 'written') return { kind: 'written' };
  if (end.kind === 'at-work') {
    coreLog.info(`#${thread.number}: agent job ${id} is still at work; it stays waiting.`);
    return { kind: 'at-work' };
  }
  const after = end.kind === 'overdue' ? 'at-work' : 'ended';
  if (accepted.features.dryRun) {
    coreLog.notice(
      `Dry run: the end of agent job ${id} of #${thread.number} (${howEnded(end)}) is not written.`,
    );
    return { kind: after };
  }
  // Where the lane has work to do on the thread — something is owed, or the job is overdue (its
  // record keeps taking requests) — its run writes this too: the thread's lane sends what is owed
  // right after, and a write of the report run's own could land after that send's record.
  const debt = how === 'write' ? undefined : await owedOf(thread, steps, deps);
  if (debt === 'unread') return { kind: 'unread' };
  const owed = debt?.what;
  const lanes = how === 'hand-off' && (owed !== undefined || end.kind === 'overdue');
  if (lanes && (await steps.sweep.handOff(thread.number, signal))) {
    coreLog.info(
      end.kind === 'overdue'
        ? `#${thread.number}: agent job ${id} ${howEnded(end)}; its thread's own run tells the thread.`
        : `#${thread.number}: agent job ${id} ${howEnded(end)}, and the thread is owed ${owed}: its thread's own run writes the end and sends it.`,
    );
    return { kind: after === 'ended' ? 'handed' : 'at-work' };
  }
  const wrote = await steps.sweep.reportEnd(thread, end, signal);
  coreLog.info(
    wrote
      ? `#${thread.number}: agent job ${id} ${howEnded(end)}; ${end.kind === 'overdue' ? 'the thread is told, and it stays waiting' : 'its end is written on the thread'}.`
      : `#${thread.number}: another run reported agent job ${id} meanwhile.`,
  );
  // An overdue mark is not an end: the job is still at work, and nothing may be sent to it.
  return {
    kind: after,
    ...(wrote ? { swept: sweptOf({ thread: thread.number }, thread.note.job, end) } : {}),
  };
}

/**
 * The waiting job as the service answers: `undefined` when it no longer knows it (404); `unread`
 * on any other fault: a warning on a report run (a later run reports it), the step's failure on a
 * lane run (the thread's run: what is owed stays owed, and its re-run tries again).
 */
async function readWaitingJob(
  { client, accepted, step }: SweepDeps,
  id: string,
  waiting: Waiting,
  signal: AbortSignal,
): Promise<AgentJob | undefined | 'unread'> {
  try {
    return await client.getJob(id, { signal });
  } catch (error) {
    const gone = error instanceof ServiceError && error.fault.kind === 'http' && error.fault.status === 404;
    if (gone) return undefined;
    if (signal.aborted) return 'unread';
    const said = `Could not read agent job ${label(id)}, which run ${waiting.run} left at work (${describeThrown(error)})`;
    if (accepted.features.lane !== undefined)
      step.fail(
        new ActionFailure(
          `${said}: nothing was sent, and what the thread asked stays owed; re-run this run once the service answers.`,
        ),
      );
    else coreLog.warning(`${said}; a later run reports its end.`);
    return 'unread';
  }
}

/**
 * What a waiting thread is owed, in the log's words: what it asked while its job worked (requests
 * queued, its merge under `at-merge`), or, under `every-push`, a change pushed to its pull request
 * meanwhile (its merge included: its run was held as a push's is); `undefined`: nothing;
 * `unread`: the pull request could not be read, so the thread is left to a later run.
 */
async function owedOf(
  thread: FoundWaiting,
  steps: GitHubSteps,
  { accepted, step }: SweepDeps,
): Promise<{ what: string } | 'unread' | undefined> {
  if (owes(thread.note)) return { what: 'what it asked while its job worked' };
  // Under at-merge and on-request a push's change is held whatever the job does: nothing owed.
  if (!thread.pull || accepted.inputs.followUp !== 'every-push') return undefined;
  const pull = await steps.sweep.pull(thread.number, step.signal).catch((error: unknown) => {
    coreLog.warning(
      `Could not read pull request #${thread.number}: ${describeThrown(error)}; a later run reports the thread.`,
    );
    return 'unread' as const;
  });
  if (pull === 'unread') return pull;
  if (!(pull.open || pull.merged) || pull.head === thread.note.head) return undefined;
  return { what: pull.open ? 'a change pushed while its job worked' : 'its merge, while its job worked' };
}

/**
 * What a thread whose job's end is written is owed, handed to the thread's lane (a report run
 * sends nothing); whether it was.
 */
async function handOffOwed(thread: FoundWaiting, steps: GitHubSteps, deps: SweepDeps): Promise<boolean> {
  const owed = await owedOf(thread, steps, deps);
  if (!owed || owed === 'unread' || !(await steps.sweep.handOff(thread.number, deps.step.signal)))
    return false;
  coreLog.info(`#${thread.number} is owed ${owed.what}: its thread's own run sends it.`);
  return true;
}

/**
 * The branches' jobs left at work (a branch's thread keeps its job in commit statuses, recorded
 * where a report run lists them): each read once; an ended one's end written on every status
 * still pending for it, and its records deleted. A job whose statuses no longer wait (another run
 * wrote its end) only has its records deleted, once it ended. Jobs a pull request's thread waits
 * for are that thread's to report. A change the branch was pushed while its job worked is sent by
 * the branch's next push (a report run sends nothing).
 */
async function reportBranches(
  steps: GitHubSteps,
  told: ReadonlySet<string>,
  deps: SweepDeps,
): Promise<{ reported: SweptThread[]; atWork: number }> {
  const { accepted, step } = deps;
  const { signal, clock } = step;
  const { head, jobs: found } = await steps.sweep.branchWaiting(signal).catch((error: unknown) => {
    throw new ActionFailure(`Could not look for the jobs branches left at work: ${describeThrown(error)}`);
  });
  // Without a head the records were read, on whatever branch each job is.
  const whose = head === undefined ? "A branch's" : "The default branch's";
  const reported: SweptThread[] = [];
  let atWork = 0;
  for (const branch of found) {
    if (signal.aborted || told.has(branch.job)) continue;
    const id = label(branch.job);
    const waits = branch.pending.length > 0;
    const newest = waits ? Math.max(...branch.pending.map((p) => p.at ?? clock.now())) : clock.now();
    const waiting = {
      run: branch.run,
      at: newest,
      timeout: accepted.inputs.timeout,
      ...(branch.overdue ? { overdue: true as const } : {}),
    };
    const job = await readWaitingJob(deps, branch.job, waiting, signal);
    if (job === 'unread') continue;
    const end = waitingEnd(waiting, job, clock.now());
    const commits = branch.pending.map((p) => p.sha.slice(0, 12)).join(', ');
    if (end.kind === 'at-work' || end.kind === 'written') {
      if (!waits) continue;
      atWork++;
      coreLog.info(`${whose} agent job ${id} (${commits}) is still at work; it stays waiting.`);
      continue;
    }
    if (accepted.features.dryRun) {
      coreLog.notice(
        waits
          ? `Dry run: the end of ${whose.toLowerCase()} agent job ${id} (${howEnded(end)}) is not written.`
          : `Dry run: the records of agent job ${id}, whose end another run wrote, are not deleted.`,
      );
      continue;
    }
    await steps.sweep.reportBranchEnd(branch, end, signal);
    if (!waits) {
      coreLog.info(`Agent job ${id} ${howEnded(end)}; another run wrote its end, and its records go.`);
      continue;
    }
    coreLog.info(`${whose} agent job ${id} ${howEnded(end)}; its end is written on ${commits}.`);
    reported.push(sweptOf({ commit: branch.pending[0]?.sha ?? '' }, branch.job, end));
    if (head && head !== branch.pending[0]?.sha)
      coreLog.info(
        `The default branch moved on while agent job ${id} worked: its next push sends that change.`,
      );
  }
  return { reported, atWork };
}

/** The waiting threads, or the step's error saying why they could not be listed. */
async function listWaiting(steps: GitHubSteps, signal: AbortSignal): Promise<FoundWaiting[]> {
  try {
    return await steps.sweep.waiting(signal);
  } catch (error) {
    throw new ActionFailure(
      `Could not list the threads waiting for their agent job: ${describeThrown(error)}`,
    );
  }
}

/** One reported thread (a pull request's or issue's number, or a branch's newest commit), as the `reported` output and the summary list it. */
function sweptOf(
  where: { thread: number } | { commit: string },
  jobId: string,
  end: WaitingNews,
): SweptThread {
  const status = end.kind === 'lost' ? 'lost' : end.kind === 'overdue' ? 'timed-out' : end.job.status;
  const prLink = end.kind === 'ended' ? outputLink(end.job.prLink) : '';
  return { ...where, jobId, status, prLink };
}
