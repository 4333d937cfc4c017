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
import { coreLog, describeThrown } from './core/log.js';
import type { FoundWaiting, GitHubSteps } from './core/ports.js';
import { label } from './core/untrusted.js';
import { howEnded, ownProject, owes, projectKey, waitingEnd } from './core/ledger.js';
import type { Waiting, WaitingNews } from './core/ports.js';
import { ServiceError } from './service/client.js';
import type { JobRun } from './execute/job-run.js';
import type { Accepted, LazyGitHub } from './accepted.js';
import { LANE_INPUT, type Payload, type RunEvent } from './core/event.js';
import { commentRequestEvent, pullHeadEvent, pullMergeEvent } from './core/request-event.js';
import { setupFor } from './decide/setup.js';
import { setOutput } from './report/outputs.js';
import { writeSweepSummary, type SweptThread } from './report/summary.js';
import type { AgentClient } from './service/client.js';
import { ActionFailure, type FaultContext } from './service/errors.js';

/** What a report run needs of the run: its setup, the service, its GitHub side, its step. */
export interface SweepDeps {
  accepted: Accepted;
  client: Pick<AgentClient, 'getJob'>;
  faults: FaultContext;
  github: LazyGitHub;
  step: JobRun;
  /**
   * Carries a lane run's replayed pass on its thread (decide, execute, report), told apart in the
   * log and summary by the thread's number; the quota uses it spent.
   */
  carry: (theirs: Accepted, thread: number) => Promise<number>;
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
    if (features.lane === undefined) await report(steps, deps, done);
    else await laneRun(features.lane, steps, deps, done);
  } catch (error) {
    step.fail(error);
  }
  try {
    setOutput('mode', 'swept');
    setOutput('status', features.dryRun ? 'dry-run' : 'swept');
    setOutput('uses', String(done.uses));
    setOutput('reported', JSON.stringify(done.reported));
  } catch (error) {
    step.fail(error);
  }
  await writeSweepSummary({
    reported: done.reported,
    handedOff: done.handedOff,
    atWork: done.atWork,
    serverUrl: accepted.context.serverUrl,
  }).catch((error: unknown) =>
    coreLog.warning(`Could not write the step summary: ${describeThrown(error)}.`),
  );
  if (step.failure) core.setFailed(step.failure);
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
}

/** The threads whose records are this project's: two projects in one repository never read each other's jobs. */
function ownRecords(found: FoundWaiting[], { inputs }: Accepted): FoundWaiting[] {
  const key = projectKey(inputs.baseUrl, inputs.projectId);
  return found.filter((f) => f.note.waiting && ownProject(f.note.waiting, key, f.own));
}

/** A report run: every waiting thread reported, what each is owed handed to its lane; then the default branch. */
async function report(steps: GitHubSteps, deps: SweepDeps, done: Swept): Promise<void> {
  const { accepted, step } = deps;
  const { signal } = step;
  const found = ownRecords(await listWaiting(steps, signal), accepted);
  coreLog.info(
    found.length === 0
      ? 'No thread of this repository is waiting for its agent job to be reported.'
      : `${found.length} thread${found.length === 1 ? ' is' : 's are'} waiting for their agent job to be reported: ${found.map((f) => `#${f.number}`).join(', ')}.`,
  );
  for (const thread of found) {
    if (signal.aborted) return;
    // Several threads' lines, each folded under its own heading in the run's log.
    const several = found.length > 1;
    if (several) core.startGroup(`#${thread.number}: agent job ${label(thread.note.job)}`);
    try {
      const stands = await reportThread(thread, steps, deps, 'hand-off');
      if (stands.kind === 'at-work') done.atWork++;
      if (stands.kind === 'handed') done.handedOff.push(thread.number);
      if (stands.swept) done.reported.push(stands.swept);
      // Its end was written before (only what is owed kept its record): what is owed goes to its lane.
      if (stands.kind === 'written' && !accepted.features.dryRun && (await handOffOwed(thread, steps, deps)))
        done.handedOff.push(thread.number);
    } finally {
      if (several) core.endGroup();
    }
  }
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
  const thread = found[0];
  coreLog.info(
    `This run is #${number}'s thread's own (${LANE_INPUT}): it reports the thread's agent job, if it waits for one, and sends what the thread is owed.`,
  );
  if (thread) {
    const stands = await reportThread(thread, steps, deps, 'write');
    if (stands.swept) done.reported.push(stands.swept);
    if (stands.kind !== 'ended' && stands.kind !== 'written') {
      if (stands.kind === 'at-work') done.atWork++;
      return;
    }
  }
  if (accepted.features.dryRun || step.signal.aborted) return;
  done.uses += await sendOwed({ number, pull }, thread, steps, deps);
}

/**
 * One waiting thread: its job read once, and what changed written once — the end (its record kept
 * while something is owed), or the overdue mark — by this run, or, on a report run (`hand-off`)
 * where the thread is owed something or the job is overdue, by the thread's lane (unless GitHub
 * refuses the hand-off). `written`: its end was written before this run; `ended`: this run (or
 * another meanwhile) wrote it, so what is owed may go; `handed`: the lane writes it and sends what
 * is owed; `at-work`: nothing may be sent; `unread`: nothing is known.
 */
async function reportThread(
  thread: FoundWaiting,
  steps: GitHubSteps,
  deps: SweepDeps,
  how: 'hand-off' | 'write',
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
  const owed = how === 'hand-off' ? await owedOf(thread, steps, signal) : undefined;
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
 * queued, its merge), or a change pushed to its pull request meanwhile; `undefined`: nothing.
 */
async function owedOf(
  thread: FoundWaiting,
  steps: GitHubSteps,
  signal: AbortSignal,
): Promise<string | undefined> {
  if (owes(thread.note)) return 'what it asked while its job worked';
  if (!thread.pull) return undefined;
  const pull = await steps.sweep.pull(thread.number, signal).catch((error: unknown) => {
    coreLog.warning(
      `Could not read pull request #${thread.number}: ${describeThrown(error)}; its next run sends what changed.`,
    );
    return undefined;
  });
  // A merge while the job worked is held as a push is: its run sent nothing to the job.
  if (!(pull?.open || pull?.merged) || pull.head === thread.note.head) return undefined;
  return pull.open ? 'a change pushed while its job worked' : 'its merge, while its job worked';
}

/**
 * What a thread whose job's end is written is owed, handed to the thread's lane (a report run
 * sends nothing); whether it was.
 */
async function handOffOwed(thread: FoundWaiting, steps: GitHubSteps, deps: SweepDeps): Promise<boolean> {
  const { signal } = deps.step;
  const owed = await owedOf(thread, steps, signal);
  if (!owed || !(await steps.sweep.handOff(thread.number, signal))) return false;
  coreLog.info(`#${thread.number} is owed ${owed}: its thread's own run sends it.`);
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
    const waiting = { run: branch.run, at: newest, timeout: accepted.inputs.timeout };
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

/**
 * A lane run's send: what its thread asked for while its job worked, now that the job's end is
 * written, sent by playing the run that would have sent it: the newest queued request's (who asked
 * is checked; the other requests go with it in one follow-up, each gets its 👀), else, on an open
 * pull request, a push of its head (which `followUp`, or nothing new since the job last looked,
 * may hold: then nothing is written). The quota uses it spent.
 */
async function sendOwed(
  lane: { number: number; pull: boolean },
  thread: FoundWaiting | undefined,
  steps: GitHubSteps,
  deps: SweepDeps,
): Promise<number> {
  const { accepted, step } = deps;
  const { inputs, context } = accepted;
  const queued = thread && owes(thread.note) ? (thread.note.waiting?.queued ?? []) : [];
  // Under at-merge a merge is news whatever its head, so only the record says it is owed (its run
  // was held while the job worked): the merge's own run may have started the job, on that head.
  const owedMerge = thread?.note.waiting?.merge === true;
  const asked = thread?.lastQueued;
  const many = `${queued.length} request${queued.length === 1 ? '' : 's'}`;
  let replay: { event: RunEvent; payload: Payload; actor: string; sha?: string; quiet?: true } | undefined;
  if (queued.length > 0) {
    if (inputs.trigger === undefined || !asked) {
      step.fail(
        new ActionFailure(
          inputs.trigger === undefined
            ? `#${lane.number} has ${many} queued while its job worked, which this step cannot read without its trigger input: give the thread's step its trigger. Nothing was sent; they stay owed.`
            : `#${lane.number}: the newest request queued while its job worked was not found. Nothing was sent; the thread's next run sends what is queued.`,
        ),
      );
      return 0;
    }
    coreLog.info(`#${lane.number}: sending the ${many} queued while its job worked.`);
    replay = { ...commentRequestEvent(lane.number, lane.pull, asked), actor: asked.login };
  } else if (lane.pull && inputs.prompt !== undefined) {
    const pull = await steps.sweep.pull(lane.number, step.signal).catch((error: unknown) => {
      step.fail(new ActionFailure(`Could not read pull request #${lane.number}: ${describeThrown(error)}.`));
      return undefined;
    });
    const moved = !thread || pull?.head !== thread.note.head;
    const merge = pull?.merged === true && (owedMerge || (inputs.followUp !== 'at-merge' && moved));
    if (!pull || !(merge || (pull.open && moved))) return 0;
    coreLog.info(
      merge
        ? `#${lane.number}: its merge, held while the job worked, is sent as the merge's run would.`
        : `#${lane.number}: what its head holds since the job last looked is sent as its push's run would.`,
    );
    const played = merge ? pullMergeEvent(lane.number, pull.head) : pullHeadEvent(lane.number, pull.head);
    replay = { ...played, actor: context.actor, sha: pull.head, quiet: true };
  }
  if (!replay) return 0;
  const { event, payload, actor, sha, quiet } = replay;
  const setup = setupFor(
    { ...inputs, sweep: false },
    { ...context, event, payload, actor, sha: sha ?? context.sha },
  );
  const standIn = thread ? { standIn: { marker: thread.marker } } : {};
  return deps.carry({ ...setup, ...standIn, ...(quiet ? { quiet } : {}) }, lane.number);
}
