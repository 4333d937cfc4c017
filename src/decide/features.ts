// Which GitHub work this run does, decided once from the inputs and the event: every step reads
// the `Features` value instead of deciding again from the inputs or the event's name.
import { namesNoThread, type RunEvent } from '../core/event.js';
import { secretlessFork } from '../core/event-questions.js';
import { botsPullRequest, mayBeOpen } from './gate.js';
import type { EventNeeds, Inputs } from './inputs.js';
import type { RunContext } from '../core/run-context.js';
import type { Request, RequestComment } from './trigger.js';

export interface Features {
  /** Some GitHub work is asked for on this event: the GitHub side loads while the decision starts. */
  load: boolean;
  /**
   * Someone asked for this run (a `/docs` request, `triggerLabel`, a run by hand): `paths`, a
   * closed docs PR and `followUp` do not stop it.
   */
  asked: boolean;
  /** The kept comment on the pull request or issue (`comment`, `thread`, or a request, answered where it was asked). */
  comment: boolean;
  /** One job per pull request or issue (and branch, with `status`). */
  thread: boolean;
  /** What earlier runs left is read before the decision: a thread, a status, or a re-run's comment. */
  recall: boolean;
  /** What the event changed is appended to the prompt. */
  context: boolean;
  /** `paths` decides whether the change is relevant: a push or a pull request event nobody asked on. */
  paths: boolean;
  /**
   * Where a push-like run stands on its thread's pull request is read (its merge, a branch's push,
   * a newer push), and whether anything changed since the job last looked: a thread's run on a
   * push, a pull request event or a `workflow_run`, nobody asked.
   */
  moment: boolean;
  /** The `/docs` comment that asked: it gets a reaction once the job exists. */
  reaction?: RequestComment;
  /** `triggerLabel`, as applied: taken off again when the run ends, whatever the outcome. */
  removeLabel?: string;
  /**
   * `dryRun`: everything is read and decided, nothing sent. No reaction, no label taken off, no
   * docs pull request touched; the decision writes no skip status, and run() sends no create or
   * message and writes nothing on GitHub at the end.
   */
  dryRun: boolean;
  /**
   * `sweep`: a report run. It writes the end of every job a thread's run left at work and sends
   * nothing; no other feature is on.
   */
  sweep: boolean;
  /**
   * A report run that is a thread's own run (a `workflow_dispatch` a report run started, naming
   * the thread): it reports that thread's job and sends what the thread is owed, in the thread's
   * lane.
   */
  lane?: number;
  /**
   * A `/docs` asked on a thread's docs pull request (its URL, a dispatch's DOCS_ASK_INPUT): with
   * `lane`, that lane run sends what was asked there to the thread's job; without, the run finds
   * the thread the docs PR names and hands the request to its lane.
   */
  docsAsk?: string;
  /**
   * A `deployment_status` on a thread's step: the docs host deployed a pull request's preview; its
   * thread's lane links it (a run that sends nothing).
   */
  deployment?: true;
}

/** What the event means for the inputs' rules. */
export function eventNeeds(event: RunEvent): EventNeeds {
  const fork = secretlessFork(event);
  return {
    commentAsks: event.kind === 'comment',
    accessLookUp: mayBeOpen(event),
    ...(fork ? { secretlessFork: fork } : {}),
  };
}

/** The features of this run: its inputs on its event, with the request the event makes. */
export function featuresOf(
  inputs: Inputs,
  context: Pick<RunContext, 'event' | 'runAttempt'>,
  request: Request,
): Features {
  const { event } = context;
  const lane = inputs.thread ? laneOf(event) : undefined;
  const docsAsk = inputs.thread && event.kind === 'dispatch' ? event.docsAsk : undefined;
  const asks = docsAsk !== undefined ? { docsAsk } : {};
  if (lane !== undefined) return { ...sweepFeatures(inputs.dryRun), lane, ...asks };
  if (docsAsk !== undefined) return { ...sweepFeatures(inputs.dryRun), ...asks };
  if (inputs.thread && event.kind === 'deployment')
    return { ...sweepFeatures(inputs.dryRun), deployment: true };
  // A thread's step that does not wait reports on every event that belongs to no thread: the
  // recipe without waiting is one job.
  if (inputs.sweep || (inputs.thread && !inputs.wait && threadless(event, inputs.allowedActors)))
    return sweepFeatures(inputs.dryRun);
  const requested = request.kind === 'request' || request.kind === 'label';
  const asked = requested || event.kind === 'dispatch';
  // A request is a conversation: it is answered where it was asked, whatever `comment` says.
  const comment = inputs.comment || inputs.thread || requested;
  const changes = event.kind === 'push' || event.kind === 'pull-request';
  const paths = inputs.paths.length > 0 && changes;
  const route = inputs.labels.length > 0 || inputs.reviewers.length > 0;
  const autoMerge = inputs.autoMerge !== undefined;
  const load =
    request.kind !== 'skip' &&
    ((inputs.trigger !== undefined && event.kind === 'comment') ||
      (inputs.triggerLabel !== undefined && (event.kind === 'pull-request' || event.kind === 'issue')) ||
      paths ||
      comment ||
      inputs.status ||
      route ||
      autoMerge ||
      inputs.context === 'auto');
  // A dry run reads what it would read, and turns off everything that writes.
  const writes = !inputs.dryRun;
  return {
    load,
    comment,
    thread: inputs.thread,
    // The thread's job is kept in the comment; a re-run finds its earlier attempt's job there.
    recall: inputs.thread || inputs.status || (comment && context.runAttempt > 1),
    context: inputs.context === 'auto',
    asked,
    paths: paths && !asked,
    moment: inputs.thread && !asked && (changes || event.kind === 'workflow-run'),
    ...(request.kind === 'request' && writes ? { reaction: request.comment } : {}),
    ...(request.kind === 'label' && writes ? { removeLabel: request.label } : {}),
    dryRun: !writes,
    sweep: false,
  };
}

/** The thread a dispatched run is the lane run of: a checked number (see `checkLane`), else none. */
function laneOf(event: RunEvent): number | undefined {
  return event.kind === 'dispatch' && event.lane !== undefined ? Number(event.lane) : undefined;
}

/**
 * Events that belong to no thread: a schedule, a run by hand, another repository's dispatch, and
 * the events of a pull request a bot opened (the docs service's own docs PR in a monorepo).
 */
function threadless(event: RunEvent, allowedActors: string[]): boolean {
  return namesNoThread(event) || botsPullRequest(event, allowedActors);
}

/** A report run's: the GitHub side and nothing else; with `dryRun`, it reads and writes nothing. */
function sweepFeatures(dryRun: boolean): Features {
  return {
    load: true,
    asked: false,
    comment: false,
    thread: false,
    recall: false,
    context: false,
    paths: false,
    moment: false,
    dryRun,
    sweep: true,
  };
}
