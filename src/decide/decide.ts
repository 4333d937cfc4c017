// The first of the run's three steps: before anything is sent to the service, decide whether the
// step acts at all (a request, who asked), what earlier runs left, which way the run goes with the
// job, and the whole prompt. The result is one value; execute and report take it from here.
import { admit, type Skip } from './admission.js';
import { isDocsService, notAThread } from './gate.js';
import type { AgentClient } from '../service/client.js';
import type { Clock } from '../core/clock.js';
import { budgetSpent } from './budget.js';
import { unkeptBranch } from './branch-thread.js';
import { earlierAttemptJob, planJob, readThreadJob, threadOf } from './continuity.js';
import { heldByPolicy, nothingNew, overtaken, threadStep, type Held, type ThreadStep } from './follow-up.js';
import { gatherQueued, type Queued } from './queued.js';
import { ActionFailure, type FaultContext } from '../service/errors.js';
import type { RunEvent } from '../core/event.js';
import type { Features } from './features.js';
import type { Inputs } from './inputs.js';
import { describeThrown, type Log } from '../core/log.js';
import { onlyWaits, type Mode } from '../core/mode.js';
import type { Changed, DecideReads, Memory } from '../core/ports.js';
import type { DocsAsks } from '../core/sweep-ports.js';
import { isTerminal, type AgentJob } from '../core/job.js';
import { samePage } from '../core/pull-request.js';
import { label } from '../core/untrusted.js';
import { redact } from '../core/secrets.js';
import type { Request } from './trigger.js';
import type { PathFilter } from './paths.js';

/** A request on a thread's docs PR is answered where it was asked, naming its thread where the docs PR's note does. */
function docsPrAnswer(thread: number | undefined): string {
  const where =
    thread === undefined ? 'the pull request it documents' : `#${thread}, the pull request it documents`;
  return `This is a docs pull request that a thread of this workflow opened: it starts no docs job of its own. Ask on ${where}, and its job takes the request.`;
}

export type Decision =
  | Skip
  | {
      kind: 'go';
      mode: Mode;
      /** The whole prompt to send (standing prompt, request, context); none when only waiting. */
      prompt?: string;
      /** What earlier runs left, handed on to the report, which writes the next note from it. */
      memory: Memory;
      /**
       * A follow-up to the thread's job: should the service refuse it outright, a new job takes
       * the thread over, with the whole context (it never saw the pull request), not only what
       * changed since the head the old job saw.
       */
      replacement?: { jobId: string; prLink?: string | null; prompt: () => Promise<string> };
    };

// Compiled `paths` patterns: a type only, so the matcher's chunk still loads only when `paths` is set.
export type { PathFilter };

export interface DecideDeps {
  event: RunEvent;
  request: Request;
  /** What the run does on GitHub: decided once, from the inputs and the event. */
  features: Features;
  /** `paths`, compiled before anything was sent; absent when not set. */
  paths?: PathFilter;
  /** The GitHub side, loaded on first use; `undefined` when it could not load (a warning said so). */
  github: () => Promise<DecideReads | undefined>;
  client: Pick<AgentClient, 'getJob'>;
  log: Log;
  clock: Clock;
  deadline: number;
  context: FaultContext;
  signal: AbortSignal;
  run: { runId: number; attempt: number; actor: string };
  /**
   * What earlier runs left, when the run read it first (to report a waiting job's end): the
   * memory, and the thread's job as read then; or the fault that reading it met.
   */
  recalled?: { memory: Memory; job?: AgentJob; atWork?: true } | { error: unknown };
  /** A lane run's pass: the requests on the thread's docs pull request, read there, go with its send. */
  onDocs?: DocsAsks;
}

/** Decides; throws only when a thread's memory cannot be read (nothing is sent then). */
export async function decide(inputs: Inputs, deps: DecideDeps): Promise<Decision> {
  const decided = await decideRun(inputs, deps);
  return inputs.draft && deps.features.thread ? withDraft(decided, deps) : decided;
}

/**
 * `draft: true`: a run on the code pull request's close (merged, or not) that sends nothing still
 * moves its docs PR along (ready, or closed): the thread's job's docs PR, read from the service (a
 * GET: no quota use). Where the job cannot be read or has none, nothing is asked.
 */
async function withDraft(decided: Decision, deps: DecideDeps): Promise<Decision> {
  const { event, client, log, signal } = deps;
  // A merge the record owes (held while the job works) is the lane's: its end moves the docs PR.
  if (
    decided.kind !== 'skip' ||
    !decided.held ||
    decided.owe ||
    event.kind !== 'pull-request' ||
    event.action !== 'closed'
  )
    return decided;
  const id = decided.held.job ?? decided.held.memory.note?.job;
  if (!id) return decided;
  try {
    const job = await client.getJob(id, { signal });
    return job.prLink ? { ...decided, docsDraft: job.prLink } : decided;
  } catch (error) {
    if (signal.aborted) throw error;
    log.warning(
      `Could not read agent job ${label(id)} for its docs pull request (${describeThrown(error)}); it does not follow this pull request's close (draft: true).`,
    );
    return decided;
  }
}

async function decideRun(inputs: Inputs, deps: DecideDeps): Promise<Decision> {
  const { event, request, features, github, log, signal } = deps;
  const admission = await admit(
    inputs,
    event,
    request,
    async (actor) => (await github())?.accessOf(actor, signal),
    deps.run.actor,
  );
  if (admission.kind === 'skip') return admission;

  // What GitHub remembers decides which way the run goes: read only when the features need it.
  const gated = features.paths && deps.paths !== undefined;
  const port = features.recall || features.context || gated ? await github() : undefined;
  if (features.thread && !port) {
    throw new ActionFailure(
      "The GitHub side of the action could not load, so this thread's job cannot be looked up. Nothing was sent, so the thread does not get a second job; re-run the workflow.",
    );
  }
  const read = deps.recalled;
  // Thrown here, where the decision would have read it: the step ends with nothing sent.
  if (read && 'error' in read) throw read.error;
  const first = read;
  const recalled =
    features.recall && port ? (first?.memory ?? (await port.recall(features.thread, signal))) : {};
  // A thread's docs PR, or a bot's pull request only GitHub could name (a push's): no job.
  const foreign = features.thread
    ? (notAThread(recalled.opened, inputs.allowedActors, features.asked) ??
      (recalled.atWork ? await openedByJobAtWork(recalled.atWork, deps) : undefined))
    : undefined;
  if (foreign) {
    // The docs PR's note names its thread: one read, and a fault only leaves the answer general.
    const by = recalled.opened?.by?.login;
    const docsPr = recalled.opened?.docsLabel || (by !== undefined && isDocsService(by));
    const of =
      event.kind === 'comment' && docsPr && port
        ? await port.docsOf(signal).catch(() => undefined)
        : undefined;
    // A writer's request there goes to the job that opened it, through its thread's lane.
    if (of !== undefined && request.kind === 'request' && !request.comment.review)
      return {
        kind: 'skip',
        notice: `Handed to #${of}'s thread: this is its docs pull request, and the thread's own run sends the request to the job that opened it.`,
        handOff: { thread: of, answer: docsPrAnswer(of) },
      };
    return {
      kind: 'skip',
      notice: foreign.notice,
      ...(port ? { held: { status: foreign.status, memory: recalled } } : {}),
      ...(event.kind === 'comment'
        ? {
            answer:
              recalled.opened?.docsLabel || of !== undefined
                ? docsPrAnswer(of)
                : foreign.notice.replace(/^Skipped: /, 'Not sent: '),
          }
        : {}),
    };
  }
  // A re-run that resumes its earlier attempt's job sends nothing new: nothing below holds it back,
  // and it gathers no requests.
  const resumes = features.thread && earlierAttemptJob(recalled, deps.run) !== undefined;
  // Before the holds: a request is never held back, and one an earlier run carried ends here.
  const queued: Queued = resumes
    ? { kind: 'go', memory: recalled }
    : await gatherQueued(inputs, recalled, { ...deps, port });
  if (queued.kind === 'skip') return queued;
  const { memory } = queued;
  // With `wait: false`, a request on a thread whose job is still at work waits for the job's end:
  // the thread's run that sees that end sends it, with every other one queued, in one follow-up.
  // Only a read that said so parks anything (a job that could not be read ended the step above).
  const atWork = first?.atWork ? memory.note?.waiting : undefined;
  // A review comment cannot be kept for later: the thread's record and request ledger keep the
  // pull request's own comments, which a lane run reads back to send.
  if (atWork && !inputs.wait && request.kind === 'request' && request.comment.review && !resumes) {
    const id = label(memory.note?.job ?? '');
    return {
      kind: 'skip',
      notice: `Not sent: agent job ${id} is still at work (run ${atWork.run} left it so), and a review comment cannot be queued; ask again in a comment on the pull request, or once it is done.`,
      answer: `Not sent: the agent is still at work on job ${id}, and a review comment cannot be queued. Ask again in a comment on the pull request, which is sent when the job is done.`,
    };
  }
  if (atWork && !inputs.wait && request.kind === 'request' && !resumes) {
    const id = label(memory.note?.job ?? '');
    return {
      kind: 'skip',
      notice: `Queued: agent job ${id} is still at work (run ${atWork.run} left it so); this request is sent when it is done, by the thread's next run.`,
      answer: `Queued: the agent is still at work on job ${id}. This request is sent when it is done, with any other request made meanwhile.`,
      owe: { request: request.comment.id },
    };
  }
  // Requests owed are never held back: not by followUp, nor by a push that has nothing new, was
  // overtaken or touched nothing under paths. Only the budget stops them, and a job at work.
  const owed = queued.owed === true;
  const prompt = queued.prompt ?? admission.prompt;
  const remembered = threadOf(memory);
  const { job } = remembered;
  // Only a thread's job is followed up with what changed since it last looked.
  const since = features.thread ? remembered.since : undefined;
  // A run that sends nothing leaves a success status naming the thread's job (a required check
  // passes, and a branch's next push still finds the job): the report writes it.
  const hold = (held: Held, named: string | undefined): Skip => ({
    kind: 'skip',
    notice: held.notice,
    ...(port ? { held: { status: held.status, ...(named ? { job: named } : {}), memory } } : {}),
  });
  const { asked } = features;
  // Nothing is sent to a job at work, from any run: requests owed stay queued in its record, a
  // push's change waits for the run that sees the job's end (the thread's lane), and under
  // at-merge the merge is owed in the record. What followUp would hold anyway says so, not "sent
  // when it is done"; so does a label's request, which nothing keeps.
  if (atWork && !inputs.wait && !resumes) {
    const moment = event.kind === 'push' && features.moment && port ? await port.moment(signal) : {};
    const now = threadStep(event, asked, moment);
    const policy = heldByPolicy(inputs.followUp, now, job, moment.unread === true, memory.note);
    if (policy) return hold(policy, job);
    if (request.kind === 'label')
      return hold(
        {
          notice: `Not sent: agent job ${label(job ?? '')} is still at work; apply the label ${label(request.label)} again once it is done.`,
          status: 'Not sent: the agent is at work',
        },
        job,
      );
    const merged = now === 'merge' && !moment.branch;
    if (!merged || inputs.followUp !== 'at-merge')
      return hold(whileAtWork(job, merged ? 'this merge' : 'what this push changed'), job);
    // Under at-merge the merge is news in itself, whatever its head: the record says it is owed.
    return {
      ...hold(whileAtWork(job, 'this merge'), job),
      answer: `Held: the agent is still at work on job ${label(job ?? '')}. The merge is sent when it is done.`,
      owe: { merge: true },
    };
  }
  let step: ThreadStep | undefined;
  // The thread's job as read before the plan (a waiting job's, or a branch's left at work).
  let known = first?.job;
  if (features.thread && port && !resumes && !owed) {
    const moment = features.moment ? await port.moment(signal) : {};
    step = threadStep(event, asked, moment);
    // Only a push's step comes from GitHub's word; an event's own payload names the others.
    const unread = moment.unread === true && event.kind === 'push';
    const policy = heldByPolicy(inputs.followUp, step, job, unread, memory.note);
    if (policy) return hold(policy, job);
    // A push that would send, now known to be a branch's: without status its job is kept nowhere.
    const unkept = unkeptBranch(inputs, event, moment);
    if (unkept) throw new ActionFailure(unkept);
    if (moment.newerHead && (step === 'change' || moment.branch))
      return hold(overtaken(moment.newerHead, moment.branch), job);
    // The note records a pull request's merge told once the service takes the send (a branch has none).
    if (step === 'merge' && !moment.branch) memory.merge = true;
    // A branch keeps its job in commit statuses: one a run left at work holds the push as above.
    if (!inputs.wait && moment.branch && memory.branch?.goesOn && job) {
      // Read with the thread read's retries: a job that cannot be read fails the step with
      // nothing sent (it may still be at work), never lets the push's send go.
      known = await readThreadJob(job, 'the branch', {
        client: deps.client,
        log,
        clock: deps.clock,
        deadline: deps.deadline,
        context: deps.context,
        signal,
      });
      if (known && !isTerminal(known.status)) return hold(whileAtWork(job, 'what this push changed'), job);
      // Its pass ended: the last writes give that pass's pending status its word, as a pull
      // request's run reports a waiting job's end before it sends.
      if (known) memory.branch = { ...memory.branch, ended: known };
    }
  }
  // A merge carrying owed requests tells the job the merge too, recorded as any merge is: its
  // payload says so, or for a push GitHub's word (the push's pull request, already read).
  if (owed && !resumes && port && features.thread) {
    const moment = event.kind === 'push' && features.moment ? await port.moment(signal) : {};
    if (threadStep(event, asked, moment) === 'merge' && !moment.branch) memory.merge = true;
  }
  // Decided before any resume: a re-run of a skipped run decides afresh, and skips again.
  const fresh = features.moment && since !== undefined && !resumes;
  if ((gated || fresh) && port && !owed) {
    const changed = await port.changedFiles(since, signal);
    // Under at-merge the merge is news in itself: its prompt says so, whatever changed.
    const news = step === 'merge' && inputs.followUp === 'at-merge';
    const stale = fresh && !news ? nothingNew(changed, since, job) : undefined;
    if (stale) return hold(stale, job);
    const skip = deps.paths && gated ? await irrelevant(deps.paths, changed, log, signal) : undefined;
    if (skip) return hold({ notice: skip, status: 'No docs-relevant change' }, job);
  }
  const plan = await planJob(
    {
      ...inputs,
      prompt,
      runId: deps.run.runId,
      attempt: deps.run.attempt,
      asked,
      ...(inputs.trigger ? { trigger: inputs.trigger } : {}),
    },
    features.recall && port ? memory : undefined,
    {
      client: deps.client,
      ...(port ? { docsPull: (link: string) => port.docsPull(link, signal) } : {}),
      log,
      clock: deps.clock,
      deadline: deps.deadline,
      context: deps.context,
      signal,
      ...(known ? { known } : {}),
    },
  );
  // Named by no job: a re-run of this run must decide afresh, not resume the closed PR's job.
  if (plan.kind === 'skip') return hold(plan, undefined);
  // After the plan, so that a re-run that only waits for its earlier attempt's job still goes on.
  const spent = features.thread ? budgetSpent(inputs.budget, plan.mode, memory, log) : undefined;
  if (spent) return { ...hold(spent, job), ...(spent.answer ? { answer: spent.answer } : {}) };

  const written = onlyWaits(plan.mode) ? undefined : prompt;
  const whole = async (since?: string): Promise<string> => {
    let prompt = written ?? '';
    if (features.context && port) {
      const section = await port.context(since, inputs.contextLimit, signal);
      if (section) prompt = `${prompt}\n\n${section}`;
    }
    return withoutRunSecrets(prompt, log);
  };
  return {
    kind: 'go',
    mode: plan.mode,
    ...(written !== undefined ? { prompt: await whole(plan.since) } : {}),
    memory,
    ...(plan.thread ? { replacement: { ...plan.thread, prompt: () => whole() } } : {}),
  };
}

/**
 * With `wait: false`, a change while the thread's job is still at work waits for its end, as a
 * waiting run's pending successor would: the thread's lane sends what changed since the job last
 * looked, once, however many pushes came meanwhile, when a run of it sees that end.
 */
function whileAtWork(job: string | undefined, what: string): Held {
  return {
    notice: `Held: agent job ${label(job ?? '')} is still at work; ${what} is sent when it is done, by the thread's next run.`,
    status: 'Sent when the agent is done',
  };
}

/**
 * Whether a thread's job at work opened this pull request (its `prLink` names it): then it is that
 * thread's docs PR, not yet labelled. Each job is read once (a GET spends no quota); one that
 * cannot be read is a warning, and the run goes on as a thread of its own.
 */
async function openedByJobAtWork(
  atWork: { jobs: string[]; self: string },
  deps: Pick<DecideDeps, 'client' | 'log' | 'signal'>,
): Promise<{ notice: string; status: string } | undefined> {
  for (const id of atWork.jobs) {
    try {
      const job = await deps.client.getJob(id, { signal: deps.signal });
      if (samePage(job.prLink, atWork.self)) {
        return {
          notice: `Skipped: agent job ${label(id)} of a thread of this workflow opened this pull request as its docs pull request: a docs pull request starts no docs job of its own. Ask on the pull request it documents.`,
          status: 'A docs PR starts no docs job',
        };
      }
    } catch (error) {
      if (deps.signal.aborted) throw error;
      deps.log.warning(
        `Could not read agent job ${label(id)}, at work on another thread, to tell whether it opened this pull request (${describeThrown(error)}); the run goes on as a thread of its own.`,
      );
    }
  }
  return undefined;
}

/**
 * Whether the change touched nothing `paths` names: the skip's notice, or `undefined` to go on. A
 * list GitHub could not give, may have cut short, or that matching could not finish never skips:
 * the job goes ahead, and a warning says why.
 */
async function irrelevant(
  paths: PathFilter,
  changed: Changed,
  log: Log,
  signal: AbortSignal,
): Promise<string | undefined> {
  if ('unreadable' in changed) {
    log.warning(`${changed.unreadable} Whether it touched paths is unknown, so the job goes ahead.`);
    return undefined;
  }
  const { files, partial } = changed;
  const { relevant, undecided } = await paths.relevant(files, signal);
  if (relevant.length > 0) {
    log.info(
      `${count(files.length)} changed, ${count(relevant.length)} under paths (${relevant
        .slice(0, 3)
        .map((f) => label(f))
        .join(', ')}${relevant.length > 3 ? ', …' : ''}).`,
    );
    return undefined;
  }
  if (undecided > 0) {
    log.warning(
      `Matching paths against the ${count(files.length)} changed reached its bound of work with ${count(undecided)} left unmatched; whether they are under paths is unknown, so the job goes ahead.`,
    );
    return undefined;
  }
  if (partial && files.length === 0) {
    log.warning(`${partial} Whether it touched paths is unknown, so the job goes ahead.`);
    return undefined;
  }
  if (partial) {
    log.warning(
      `${partial} None of the ${count(files.length)} listed is under paths, but one left out may be, so the job goes ahead.`,
    );
    return undefined;
  }
  return `Skipped: ${count(files.length)} changed, none under paths.`;
}

function count(files: number): string {
  return files === 1 ? '1 file' : `${files.toLocaleString('en-US')} files`;
}

/**
 * The prompt as it may leave: a file, the event's text or a careless `prompt:` can hold the key,
 * a token or the runner's own credentials, and the service is not where they belong. What was
 * taken out is never said, only that something was.
 */
function withoutRunSecrets(prompt: string, log: Log): string {
  const clean = redact(prompt);
  if (clean !== prompt) {
    log.warning(
      'The prompt held a secret of this run (the API key, a GitHub token, a proxy password or a runner token); it was replaced by *** before the prompt was sent.',
    );
  }
  return clean;
}
