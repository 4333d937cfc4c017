// A report run (`sweep: true`), with no prompt of its own. It finds every thread of the repository
// whose job a run left at work without waiting (`wait: false`), reads each job once (a read costs
// no quota use), and writes the end of each one that ended as its starting run asked; a job still
// at work stays waiting, and a thread nothing changed on gets no write. On the docs pull request's
// own event it waits for the job that opened that pull request, so its result shows within the run.
// Given the thread step's inputs, it then sends what each reported thread asked for meanwhile.
import * as core from '@actions/core';
import { isTerminal, type AgentJob } from './core/job.js';
import { outputLink, samePage } from './core/pull-request.js';
import { coreLog, describeThrown } from './core/log.js';
import type { BranchWaiting, FoundWaiting, GitHubSteps } from './core/ports.js';
import { label } from './core/untrusted.js';
import { howEnded, waitingEnd, type WaitingEnd } from './core/waiting.js';
import { readWaitingJob } from './report-waiting.js';
import { waitForJob } from './execute/wait.js';
import type { JobRun } from './execute/job-run.js';
import type { Accepted, LazyGitHub } from './main.js';
import type { Payload, RunEvent } from './core/event.js';
import { branchPushEvent, commentRequestEvent, pullHeadEvent } from './core/request-event.js';
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
   * Carries one thread's pass besides the run's (decide, execute, report), told apart in the log and
   * summary by its number (`0`: the default branch's); the quota uses it spent.
   */
  carry: (theirs: Accepted, thread: number) => Promise<number>;
}

/**
 * The report run. Its outputs: `mode` and `status` `swept`, `uses` (the follow-ups it sent for
 * what was queued), and `reported`, the threads whose end it wrote (JSON). It fails only when it could not look: no GitHub side, or the
 * waiting threads could not be listed; a thread's own fault is a warning, and a later run reports it.
 */
export async function sweep(deps: SweepDeps): Promise<void> {
  const { accepted, client, faults, github, step } = deps;
  const { signal, clock } = step;
  const { features } = accepted;
  const reported: SweptThread[] = [];
  let atWork = 0;
  let uses = 0;
  try {
    const steps = await github.load();
    if (!steps)
      throw new ActionFailure('A report run (sweep: true) needs the GitHub side, which did not load.');
    const found = await listWaiting(steps, signal);
    coreLog.info(
      found.length === 0
        ? 'No thread of this repository is waiting for its agent job to be reported.'
        : `${found.length} thread${found.length === 1 ? ' is' : 's are'} waiting for their agent job to be reported: ${found.map((f) => `#${f.number}`).join(', ')}.`,
    );
    const docsPr = ownPullRequest(accepted);
    for (const thread of found) {
      if (signal.aborted) break;
      const { note } = thread;
      const waiting = note.waiting;
      if (!waiting) continue;
      const id = label(note.job);
      const read = await readWaitingJob(client, note.job, waiting, signal);
      if (read === 'unread') continue;
      let job = read;
      // The docs pull request's own run: the job that opened it is near its end; its result
      // shows within this run rather than at the next sweep.
      if (job && !isTerminal(job.status) && docsPr && samePage(job.prLink, docsPr)) {
        coreLog.info(`Agent job ${id} of #${thread.number} opened this pull request: waiting for it to end.`);
        job = (await waitForEnd(client, note.job, job, { accepted, step, faults })) ?? job;
      }
      const end = waitingEnd(waiting, job, clock.now());
      if (end.kind === 'at-work') {
        atWork++;
        coreLog.info(`#${thread.number}: agent job ${id} is still at work; it stays waiting.`);
        continue;
      }
      if (features.dryRun) {
        coreLog.notice(
          `Dry run: the end of agent job ${id} of #${thread.number} (${howEnded(end)}) is not written.`,
        );
        continue;
      }
      if (await steps.sweep.reportEnd(thread, end, signal)) {
        coreLog.info(
          `#${thread.number}: agent job ${id} ${howEnded(end)}; its end is written on the thread.`,
        );
        reported.push(sweptOf({ thread: thread.number }, note.job, end));
        uses += await sendOwed(thread, steps, deps);
      } else {
        coreLog.info(`#${thread.number}: another run reported agent job ${id} meanwhile.`);
      }
    }
    if (!signal.aborted) {
      const told = new Set(found.map((f) => f.note.job));
      const branch = await reportBranches(steps, told, deps);
      reported.push(...branch.reported);
      atWork += branch.atWork;
      uses += branch.uses;
    }
  } catch (error) {
    step.fail(error);
  }
  try {
    setOutput('mode', 'swept');
    setOutput('status', features.dryRun ? 'dry-run' : 'swept');
    setOutput('uses', String(uses));
    setOutput('reported', JSON.stringify(reported));
  } catch (error) {
    step.fail(error);
  }
  await writeSweepSummary({ reported, atWork, serverUrl: accepted.context.serverUrl }).catch(
    (error: unknown) => coreLog.warning(`Could not write the step summary: ${describeThrown(error)}.`),
  );
  if (step.failure) core.setFailed(step.failure);
}

/**
 * The default branch's jobs left at work (a branch's thread keeps its job in commit statuses):
 * each read once; an ended one's end written on every status still pending for it. Jobs a pull
 * request's thread waits for are that thread's to report.
 */
async function reportBranches(
  steps: GitHubSteps,
  told: ReadonlySet<string>,
  deps: SweepDeps,
): Promise<{ reported: SweptThread[]; atWork: number; uses: number }> {
  const { accepted, client, step } = deps;
  const { signal, clock } = step;
  let uses = 0;
  const { head, jobs: found } = await steps.sweep.branchWaiting(signal).catch((error: unknown) => {
    throw new ActionFailure(
      `Could not look for jobs left at work on the default branch: ${describeThrown(error)}`,
    );
  });
  const reported: SweptThread[] = [];
  let atWork = 0;
  for (const branch of found) {
    if (signal.aborted || told.has(branch.job)) continue;
    const id = label(branch.job);
    const newest = Math.max(...branch.pending.map((p) => p.at ?? clock.now()));
    const waiting = { run: branch.run, at: newest, timeout: accepted.inputs.timeout };
    const job = await readWaitingJob(client, branch.job, waiting, signal);
    if (job === 'unread') continue;
    const end = waitingEnd(waiting, job, clock.now());
    const commits = branch.pending.map((p) => p.sha.slice(0, 12)).join(', ');
    if (end.kind === 'at-work') {
      atWork++;
      coreLog.info(`The default branch's agent job ${id} (${commits}) is still at work; it stays waiting.`);
      continue;
    }
    if (accepted.features.dryRun) {
      coreLog.notice(
        `Dry run: the end of the default branch's agent job ${id} (${howEnded(end)}) is not written.`,
      );
      continue;
    }
    await steps.sweep.reportBranchEnd(branch, end, signal);
    coreLog.info(`The default branch's agent job ${id} ${howEnded(end)}; its end is written on ${commits}.`);
    reported.push(sweptOf({ commit: branch.pending[0]?.sha ?? '' }, branch.job, end));
    uses += await sendBranchOwed(branch, head, deps);
  }
  return { reported, atWork, uses };
}

/**
 * A branch whose head moved while its job worked (its pushes were held): that change, sent as a
 * push of the head would have, on top of the newest commit the job was told of. Held by `followUp`
 * or with nothing new, it writes nothing. Only with the thread step's inputs.
 */
async function sendBranchOwed(
  branch: BranchWaiting,
  head: string | undefined,
  deps: SweepDeps,
): Promise<number> {
  const { accepted } = deps;
  const { inputs, context } = accepted;
  const told = branch.pending[0];
  if (!head || !told || head === told.sha) return 0;
  if (!inputs.thread || inputs.prompt === undefined) {
    coreLog.info(
      `The default branch moved on while agent job ${label(branch.job)} worked: its next push sends that change (this report run has no thread step's inputs to send it with).`,
    );
    return 0;
  }
  coreLog.info(
    `The default branch moved on while agent job ${label(branch.job)} worked; that change is sent as its push's run would.`,
  );
  const { repository } = context.payload as { repository?: { default_branch?: unknown } };
  const name = typeof repository?.default_branch === 'string' ? repository.default_branch : undefined;
  const { event, payload } = branchPushEvent(told.sha, head, name);
  const setup = setupFor(
    { ...inputs, sweep: false, status: true },
    { ...context, event, payload, sha: head },
  );
  return deps.carry({ ...setup, standIn: { statusContext: told.context }, quiet: true }, 0);
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

/** The pull request this run is on (its page's URL), when it is one's event: perhaps a docs pull request's. */
function ownPullRequest({ context }: Accepted): string | undefined {
  const { event, serverUrl, repo } = context;
  const number = event.kind === 'pull-request' ? event.pull?.number : undefined;
  return number === undefined ? undefined : `${serverUrl}/${repo.owner}/${repo.repo}/pull/${number}`;
}

/** The job polled as a waiting run would, until it ends or the run's `timeout` is up; a fault is a warning. */
async function waitForEnd(
  client: Pick<AgentClient, 'getJob'>,
  id: string,
  first: AgentJob,
  { accepted, step, faults }: Pick<SweepDeps, 'accepted' | 'step' | 'faults'>,
): Promise<AgentJob | undefined> {
  const { inputs } = accepted;
  try {
    const { job } = await waitForJob((call) => client.getJob(id, call), id, first, {
      clock: step.clock,
      deadline: step.startedAt + inputs.timeout,
      pollIntervalMs: inputs.pollInterval,
      createdAt: -Infinity,
      log: coreLog,
      context: { ...faults, operation: 'get', jobId: id },
      signal: step.signal,
    });
    return job;
  } catch (error) {
    if (!step.signal.aborted)
      coreLog.warning(
        `Could not wait for agent job ${label(id)}: ${describeThrown(error)}; a later run reports its end.`,
      );
    return undefined;
  }
}

/** One reported thread (a pull request's or issue's number, or a branch's newest commit), as the `reported` output and the summary list it. */
function sweptOf(
  where: { thread: number } | { commit: string },
  jobId: string,
  end: Exclude<WaitingEnd, { kind: 'at-work' }>,
): SweptThread {
  const status = end.kind === 'lost' ? 'lost' : end.kind === 'overdue' ? 'timed-out' : end.job.status;
  const prLink = end.kind === 'ended' ? outputLink(end.job.prLink) : '';
  return { ...where, jobId, status, prLink };
}

/**
 * What the thread asked for while its job worked, sent now that its end is written, by playing the
 * run that would have sent it, in the thread step's own comment and status context: the newest
 * request's (who asked is checked; the other requests go with it in one follow-up, each gets its
 * 👀), else, on an open pull request whose head moved since the job last looked, a push's (which
 * `followUp` may hold: then nothing is written). A report run without the thread step's inputs
 * cannot: the thread's next run sends what is owed. The quota uses it spent.
 */
async function sendOwed(thread: FoundWaiting, steps: GitHubSteps, deps: SweepDeps): Promise<number> {
  const queued = thread.note.waiting?.queued ?? [];
  const { accepted, step } = deps;
  const { inputs, context } = accepted;
  const standsIn = inputs.thread && inputs.trigger !== undefined;
  const asked = thread.lastQueued;
  const many = `${queued.length} request${queued.length === 1 ? '' : 's'}`;
  let replay: { event: RunEvent; payload: Payload; actor: string; sha?: string; quiet?: true } | undefined;
  if (queued.length > 0) {
    if (!standsIn || !asked) {
      coreLog.warning(
        !standsIn
          ? `#${thread.number} has ${many} queued while its job worked, which this report run cannot send: give it the thread step's inputs (thread, trigger, prompt) besides sweep: true. The thread's next run sends them.`
          : `#${thread.number}: the newest request queued while its job worked was not found; the thread's next run sends what is queued.`,
      );
      return 0;
    }
    coreLog.info(`#${thread.number}: sending the ${many} queued while its job worked.`);
    replay = { ...commentRequestEvent(thread.number, thread.pull, asked), actor: asked.login };
  } else if (standsIn && thread.pull && inputs.prompt !== undefined) {
    const pull = await steps.sweep.pull(thread.number, step.signal).catch((error: unknown) => {
      coreLog.warning(
        `Could not read pull request #${thread.number}: ${describeThrown(error)}; its next run sends what changed.`,
      );
      return undefined;
    });
    if (!pull?.open || pull.head === thread.note.head) return 0;
    coreLog.info(
      `#${thread.number}: its head moved while its job worked; that change is sent as its push's run would.`,
    );
    replay = {
      ...pullHeadEvent(thread.number, pull.head),
      actor: context.actor,
      sha: pull.head,
      quiet: true,
    };
  }
  if (!replay) return 0;
  const { event, payload, actor, sha, quiet } = replay;
  const status = thread.note.waiting?.status;
  const setup = setupFor(
    { ...inputs, sweep: false, status: status !== undefined },
    { ...context, event, payload, actor, sha: sha ?? context.sha },
  );
  const standIn = { marker: thread.marker, ...(status ? { statusContext: status.context } : {}) };
  return deps.carry({ ...setup, standIn, ...(quiet ? { quiet } : {}) }, thread.number);
}
