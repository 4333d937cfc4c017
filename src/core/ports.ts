// What the core asks of GitHub, in the core's own types, one narrow port a step: what decide reads
// (who asks, what earlier runs left, what changed, the docs PR), what execute writes while the job
// works (the first comment, the pending status), and what report writes at the end. The GitHub
// side (src/github/, its own chunk of dist/) implements them over one session; the core never
// imports it, only these types, so the plain path never loads Octokit.
import type { AgentJob } from './job.js';
import type { Actor } from './event.js';
import type { RequestLedger, StatusNote, ThreadNote } from './records.js';
import type { MergeMethod, Waiting, WaitingEnd, WaitingNews } from './waiting-record.js';

export type { MergeMethod, Waiting, WaitingEnd, WaitingNews };
export type { Delivery, RequestLedger, RunEntry, StatusNote, ThreadNote } from './records.js';

/** What GitHub says an actor may do in the repository (the collaborator-permission API). */
export interface Access {
  /** `admin`, `write`, `read` or `none`. */
  permission: string;
  /** The role's name (`maintain`, `triage`, a custom role's own name), for the notice. */
  role: string;
}

/** The `/docs` comment that asked for the run. */
export interface RequestComment {
  id: number;
  /** A pull request review comment (reactions go to another endpoint than an issue comment's). */
  review: boolean;
}

/** What the run asks of the GitHub side, from its inputs. */
export interface ReportRequest {
  comment: boolean;
  labels: string[];
  reviewers: string[];
  githubToken: string;
  /** `docsToken`, else `githubToken`: for a docs pull request on this run's GitHub. */
  docsToken: string;
  /** Whether the workflow set `docsToken`: only then is a docs pull request on another GitHub reached. */
  docsTokenGiven: boolean;
  baseUrl: string;
  projectId: string;
  prompt?: string;
  jobId?: string;
  /** The `/docs` comment that asked for this run's job: it gets a reaction once the job exists. */
  asked?: RequestComment;
  /** One job per thread: the comment is named without the prompt, and its note is read first. */
  thread: boolean;
  /** A commit status follows the job. */
  status: boolean;
  /** Enable auto-merge on the docs pull request with this method, once the job completed with one. */
  autoMerge?: MergeMethod;
  /** The thread's docs pull request is a draft until the code pull request merges (closed if it closes unmerged). */
  draft?: boolean;
  /** `budget`: with it, a branch's statuses carry the count of its job's quota uses. */
  budget?: number;
  /** `false`: the run ends once the job exists, and the thread records it as waiting to be reported. */
  wait: boolean;
  /**
   * The thread step a report run stands in for, to send the requests queued on its thread: that
   * step's kept comment (its marker line) and the context of its commit statuses.
   */
  standIn?: { marker?: string; statusContext?: string };
  /** `timeout` (ms): a job still at work this long after its run ended is reported as an error. */
  timeout: number;
}

/** The files a change touched, as `paths` matches them. */
export type Changed =
  /**
   * `partial` says why GitHub may have listed fewer files than the change has; `compared`, that
   * the list is GitHub's comparison since the head asked about (so an empty one means nothing new).
   */
  | { files: string[]; partial?: string; compared?: true }
  /** GitHub could not tell: the job goes ahead, and this says why. */
  | { unreadable: string };

/**
 * What earlier runs left on GitHub for this step, read before anything is sent, and handed on to
 * the report unchanged: the report writes the next note from it.
 */
export interface Memory {
  /** The note in this step's comment on the thread. */
  note?: ThreadNote;
  /** This step's own status on the run's commit (read on a re-run): an earlier attempt's job. */
  status?: StatusNote;
  /**
   * The branch's job: this step's own status on the newest commit up from the push's `before`
   * that names one, and that commit (the head the job last saw); `uses`, the quota uses that job
   * has spent, when the status holds a count.
   */
  branch?: {
    job: string;
    run: number;
    since: string;
    uses?: number;
    goesOn?: true;
    /** The pass left at work on `since` ended, as this run read it before sending: its status's last word. */
    ended?: AgentJob;
    /** The docs pull request the job opened, as this step's status linking it says (StatusNote.docsPr). */
    docsPr?: string;
    /** The docs pull request an earlier job left, which the status of the job at work names. */
    supersedes?: string;
  };
  /**
   * How the thread's pull request came to be: `docsLabel` when it carries the label a thread's run
   * puts on its docs PR (so it is one), and who opened it. Read on a thread only.
   */
  opened?: { docsLabel: boolean; by?: Actor };
  /**
   * On a pull request that is no thread yet: the jobs of the repository's threads at work (their
   * docs PR may be this one, not yet labelled), and this pull request's URL to tell it by.
   */
  atWork?: { jobs: string[]; self: string };
  /**
   * This run's send tells the thread's job its pull request's merge: once the service accepts it,
   * the note records that this run told it.
   */
  merge?: true;
  /**
   * The `/docs` requests this run sends (a request on a thread), oldest first: once the service
   * accepts the send, the note records them as delivered, each gets the 👀, and the comment names
   * them.
   */
  carried?: Carried;
}

/** The `/docs` requests a run read on its thread, and what its one create or follow-up carries. */
export interface Carried {
  /** The thread's requests as the run found them (the note's record, or where it starts). */
  ledger: RequestLedger;
  /** Issue comments the send carries: settled once the service accepts it, else still owed. */
  sent: number[];
  /** Requests whose authors may not ask: settled, never sent. */
  refused: number[];
  /** Requests read that stay owed: an author GitHub could not tell about, past one send's bounds. */
  owed: number[];
  /** Every comment above the ledger's floor up to this id was read (absent: none was). */
  readUpTo?: number;
  /** Every request the send carries (a review comment too), for the 👀 and the comment. */
  requests: { id: number; author: string; url: string; review: boolean }[];
  /**
   * The requests asked on the thread's docs pull request that the send carries (a lane run's), as
   * the record keeps them apart: settled in their own ledger, with their 👀 and the answer there.
   */
  docs?: Omit<Carried, 'docs'> & { link: string; key: string };
}

/**
 * The `/docs` requests asked on a thread's docs pull request, as a lane run read them there (only
 * when that pull request's note of this action's own names the thread).
 */
export interface DocsAsks {
  /** The docs pull request's page, and `owner/repo#number` (lower case), as the record keys it. */
  link: string;
  key: string;
  /** Its comments, oldest first (the first page, then the newest back, at most 10 pages of 100). */
  comments: ThreadComment[];
  /** Every comment was read. */
  complete: boolean;
  /** The note that names the thread: a request before it was answered that no thread took it. */
  noteId: number;
  /** The job the note names: only the thread's job now is sent what was asked there. */
  job: string;
}

/** What a thread is owed while its job works: a `/docs` request (its comment's id), or its merge. */
export type Owed = { request: number } | { merge: true };

/** A comment on the thread, as a queued `/docs` request is read from it. */
export interface ThreadComment {
  id: number;
  body: string;
  /** Its author's login, and whether GitHub calls the account a bot. */
  author: string;
  bot: boolean;
  url: string;
  /** A pull request review comment (only the run's own request can be one). */
  review: boolean;
}

/** A thread's comments as one run read them, for its `/docs` requests (`DecideReads.threadComments`). */
export interface ThreadComments {
  comments: ThreadComment[];
  complete: boolean;
  readTo?: number;
  runsUrl: string;
  keptId?: number;
}

/** The docs pull request a follow-up would go to, as GitHub tells it. */
export type DocsPull =
  | { state: 'open' | 'merged' | 'closed'; number: number; repo: string }
  /**
   * Not a pull request the action may read: nothing can be read about it; `why` says so in words
   * that follow "is" (by default, not a pull request on this GitHub).
   */
  | { state: 'elsewhere'; why?: string };

/** How the step ended, for the GitHub side's last word. */
export interface Outcome {
  /** The job, once there is one (created, followed up, resumed or given). */
  jobId?: string;
  job?: AgentJob;
  /**
   * Whether the service accepted this run's create or message (or the run only waits on a job
   * that exists). Only a confirmed job is recorded for this run in the note or the status.
   */
  confirmed: boolean;
  failure?: string;
  timedOut: boolean;
  waitedMs: number;
  /** What was read before anything was sent: the next note is written from it. */
  memory: Memory;
  /** A follow-up the service refused outright, whose thread a new job took over. */
  replaced?: { jobId: string; prLink?: string | null };
  /** The quota uses this run spent: 1 when the service accepted its create or follow-up, else 0. */
  uses?: number;
  /** When the run's work ended, by the run's clock: a job it leaves at work is waited for from then. */
  endedAt?: number;
}

/** The kept comment as this run last wrote it: the next write edits it and builds on its body. */
export interface KeptState {
  id?: number;
  url?: string;
  body?: string;
  /** A final fault (401, 403, 404, 410) was met: no later write of this run tries again. */
  givenUp?: boolean;
}

/** What the first writes left for the last ones, and what they said once a run. */
export interface FirstPost {
  comment?: KeptState;
  /** "No comment posted" was said. */
  noneSaid?: boolean;
  /** The job id left out of the status description was said. */
  idLeftOutSaid?: boolean;
}

/**
 * What execute started on GitHub once the job existed, handed to the report: its last writes wait
 * for these, so that they neither make a second comment nor land before the pending status.
 */
export interface GitHubStarted {
  /** The 👀 on the request that asked (nothing to do when none did); never rejects. */
  reaction: Promise<void>;
  /** The first post and the pending status, when either was asked for; never rejects. */
  posting?: Promise<FirstPost>;
}

/** Where a run stands on its pull request, as GitHub tells it when the run starts. */
export interface Moment {
  /** The push of a pull request's merge commit: the merge, told to the pull request's thread. */
  merge?: boolean;
  /** A push no pull request contains: a branch pushed to directly, where every push is a merge. */
  branch?: boolean;
  /** The pull request's head, when GitHub already reports a newer one than this run's own. */
  newerHead?: string;
  /** GitHub could not tell (a warning said why): the run goes as if nothing held it back. */
  unread?: boolean;
}

/** What decide reads of GitHub (and the one thing a decision writes: a skip's status). */
export interface DecideReads {
  /** The actor's access to the repository; `undefined` (with a warning) when GitHub cannot say. */
  accessOf(actor: string, signal: AbortSignal): Promise<Access | undefined>;
  /**
   * What earlier runs left. On a thread (`strict`), a fault throws: reading "nothing" would fork
   * the thread. Otherwise faults are warnings and read as nothing.
   */
  recall(strict: boolean, signal: AbortSignal): Promise<Memory>;
  /** The docs pull request's state; throws when a pull request on this GitHub cannot be read. */
  docsPull(prLink: string, signal: AbortSignal): Promise<DocsPull>;
  /**
   * The thread the run's own pull request is the docs PR of, as its note of this action's own
   * names it (read back as input); `undefined` where none does. Faults throw.
   */
  docsOf(signal: AbortSignal): Promise<number | undefined>;
  /**
   * The actor's access to the repository of the docs pull request `link` (where a request there
   * is judged), as `accessOf`; `undefined` (with a warning) when GitHub cannot say.
   */
  accessOn(link: string, actor: string, signal: AbortSignal): Promise<Access | undefined>;
  /**
   * The requests on the docs pull request `link` the thread's record owes (asked there while its
   * job worked), read there, when its note names the run's thread; `undefined` (a warning) else.
   */
  docsAsks(link: string, signal: AbortSignal): Promise<DocsAsks | undefined>;
  /** What the event changed (since `since`, the head a follow-up's job last saw), within `limit`. */
  context(since: string | undefined, limit: number, signal: AbortSignal): Promise<string>;
  /** The files the event changed (since `since`, the head the thread's job last saw). */
  changedFiles(since: string | undefined, signal: AbortSignal): Promise<Changed>;
  /** Where a push-like run stands on its pull request: its merge, a branch's push, or overtaken. */
  moment(signal: AbortSignal): Promise<Moment>;
  /**
   * The thread's comments, for the `/docs` requests queued on it: the newest pages back to the
   * first comment above `above` (at most 10 pages of 100; on a longer thread, the pages on from
   * `above` too, at most 10 more), oldest first, with the comment that started the run;
   * `complete` when every comment above `above` was read, else `readTo` when every one above it
   * up to `readTo` was; and where this repository's workflow runs are (`…/actions/runs/`). A fault
   * throws: nothing is sent.
   */
  threadComments(signal: AbortSignal, above?: number): Promise<ThreadComments>;
  /**
   * On the push of a pull request's merge: the merge commits of the other pull requests the same
   * push landed (a merge queue's group) and their numbers, oldest first; none otherwise. A fault
   * is a warning.
   */
  mergedAlongside(signal: AbortSignal): Promise<{ sha: string; number: number }[]>;
}

/** What execute writes on GitHub while the job works. */
export interface ExecuteWrites {
  /**
   * The job exists and is being waited for: the reaction, the first post, the pending status,
   * started without waiting; what they leave is the value the report is handed.
   */
  started(jobId: string, job: AgentJob | undefined, memory: Memory, uses?: number): GitHubStarted;
}

/** What report writes on GitHub at the end; every method's faults are its own to word. */
export interface ReportWrites {
  /**
   * The step's end: the comment, the status, labels, reviewers and auto-merge; the comment's URL.
   * `started` is what execute began, when it did.
   */
  finish(
    outcome: Outcome,
    started: GitHubStarted | undefined,
    signal: AbortSignal,
  ): Promise<string | undefined>;
  /**
   * A word on the thread instead of a job (a bare `/docs`), keeping the thread's note; `owed`: what
   * the record of the waiting job keeps for the lane's run that sees its end (a request's comment,
   * or the merge).
   */
  answer(text: string, signal: AbortSignal, owed?: Owed): Promise<string | undefined>;
  /**
   * A `/docs` on a thread's docs pull request (the run's own pull request, in this repository),
   * handed to thread `thread`'s lane (a `workflow_dispatch` naming the thread and this docs PR);
   * `false`, with a warning, when GitHub refused.
   */
  handDocsAsk(thread: number, signal: AbortSignal): Promise<boolean>;
  /**
   * `draft: true`, on the code pull request's close that sent nothing: its thread's docs PR
   * (`prLink`) marked ready (then `autoMerge`), or closed, as the code pull request went. Faults
   * are warnings.
   */
  followCode(prLink: string, signal: AbortSignal): Promise<void>;
  /** Takes `triggerLabel` off the pull request or issue, so it can be applied again; faults are warnings. */
  removeLabel(name: string, signal: AbortSignal): Promise<void>;
  /**
   * A run on a thread that sends nothing (held back by `followUp`, nothing new, overtaken,
   * `paths`, a docs PR closed unmerged, the budget): with `status`, a success status saying
   * `why`, so a required check never waits for a job that will not come; it names `jobId` when
   * given (so a branch's next push still finds it), with the count of its quota uses `memory`
   * holds when a branch keeps one. Nothing else is written; faults are warnings.
   */
  skipped(why: string, jobId: string | undefined, signal: AbortSignal, memory?: Memory): Promise<void>;
  /**
   * The end of the thread's job that no run waited for (`note.waiting`), as the run that left it
   * asked: the comment with the result and the record settled (cleared, or kept, its end written,
   * while something is `owed`; an overdue mark keeps it waiting), its pending status's last word,
   * the docs PR's labels, reviewers and auto-merge, and the label off once the record is gone.
   * Faults are warnings.
   */
  waitingEnd(note: ThreadNote, end: WaitingNews, owed: boolean, signal: AbortSignal): Promise<void>;
}
