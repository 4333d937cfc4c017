import { createHash } from 'node:crypto';
import { docsPrOf } from '../core/docs-record.js';
import { hasUnsafe, isPlainHttpUrl, oneLine } from '../core/untrusted.js';
import type { GitHubApi, RunContext } from './client.js';
import { describeGitHubFault, faultOf } from './errors.js';
import type { Warn } from '../core/log.js';
import type { StatusNote } from '../core/ports.js';

export type { StatusNote };

export type StatusState = 'pending' | 'success' | 'failure' | 'error';

/** GitHub refuses a description over 140 characters (422). */
const MAX_DESCRIPTION = 140;
const MAX_CONTEXT = 100;
/**
 * GitHub keeps up to 1,000 statuses a context and commit, and any number of contexts: every page
 * is read (anyone with `statuses: write` can bury this step's status under newer ones), within a
 * bound that stops a server that never stops sending pages.
 */
const MAX_PAGES = 100;

/**
 * The status's context: readable, the same from run to run of this step on this project (the next
 * push finds the job by it, and a branch rule may require it by name), and never the same for two
 * steps — so neither the prompt nor the event is in it. The step is named when the workflow gave it
 * an `id:`; GitHub's generated names (`__acme_docs-agent`, `__acme_docs-agent_2`) are noise on a
 * pull request's checks, so the first unnamed step of this action is not named and a later one is
 * told apart by its number (`#2`).
 *
 * Readable and unique hold together only while the parts cannot be read two ways. Wherever they
 * could — a generated name whose base is not this action's own (`__x_2` is the second step of `x`
 * or the first of `x_2`), a workflow name holding ` / `, anything the filter changed (control,
 * invisible, bidi characters) or a name too long for GitHub's 100 characters — the context ends in
 * a short hash of the exact parts instead, cut at a character, never inside a surrogate pair.
 */
export function statusContext(run: RunContext, key: { baseUrl: string; projectId: string }): string {
  const workflow = oneLine(run.workflow);
  const step = stepPart(run);
  const readable = `docs agent: ${workflow} / ${oneLine(run.job)}${step.text} (${key.projectId})`;
  const exact =
    step.exact &&
    workflow === run.workflow &&
    !run.workflow.includes(' / ') &&
    !run.workflow.endsWith(' /') &&
    STEP_ID.test(run.job);
  if (exact && readable.length <= MAX_CONTEXT) return readable;
  // What the readable part leaves out is in the hash; a readable part that is exact keeps the
  // hash it always had, so a long name's context does not change.
  const parts = exact
    ? `${readable}
${key.baseUrl}`
    : JSON.stringify([run.workflow, run.job, run.action, key.projectId, key.baseUrl]);
  const hash = createHash('sha256').update(parts).digest('hex').slice(0, 8);
  if (readable.length + 1 + hash.length <= MAX_CONTEXT) return `${readable} ${hash}`;
  return `${cutAt(readable, MAX_CONTEXT - hash.length - 2)}… ${hash}`;
}

/** A job id or a step id as a workflow may write one; GitHub keeps ids starting with `__` for itself. */
const STEP_ID = /^(?!__)[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * The step's part of the context, and whether it names the step exactly. The first generated name
 * of this action is `__` and its repository (`GITHUB_ACTION_REPOSITORY`, `/` as `_`), a later one
 * that name and `_2`, `_3`… Only those are shortened; any other generated name is shortened too,
 * but as inexact, so the context gets its hash.
 */
function stepPart(run: RunContext): { text: string; exact: boolean } {
  const name = run.action;
  if (!name.startsWith('__')) {
    return STEP_ID.test(name)
      ? { text: ` / ${name}`, exact: true }
      : { text: ` / ${oneLine(name)}`, exact: false };
  }
  const base = ownGeneratedName(run.actionRepository);
  if (base && name === base) return { text: '', exact: true };
  const later = base && name.startsWith(`${base}_`) ? name.slice(base.length + 1) : undefined;
  if (later !== undefined && /^[1-9]\d{0,5}$/.test(later)) return { text: ` #${later}`, exact: true };
  const number = /_([1-9]\d{0,5})$/.exec(name)?.[1];
  return { text: number ? ` #${number}` : '', exact: false };
}

/** `__owner_repo`, as GitHub names an unnamed step that uses `owner/repo`; none for a local action. */
function ownGeneratedName(repository: string): string | undefined {
  const [owner, repo, ...rest] = repository.split('/');
  if (!owner || !repo || rest.length > 0) return undefined;
  const clean = (part: string) => part.replace(/[^A-Za-z0-9_-]/g, '');
  return `__${clean(owner)}_${clean(repo)}`;
}

/** The first characters of `text` that fit in `max` UTF-16 units, never half a surrogate pair. */
function cutAt(text: string, max: number): string {
  let cut = '';
  for (const ch of text) {
    if (cut.length + ch.length > max) break;
    cut += ch;
  }
  return cut;
}

/**
 * `Working: job job_8f2c · run 123`: what a person reads, and what the next run parses. A job id
 * too long to fit, or with a character that would make the description read as something else
 * (bidi, invisible, control), is left out (`fits` false): a re-run then cannot resume from the
 * status. `uses`, when given, is the count a branch keeps of its job's quota uses
 * (`… · run 123 · 3 uses`); where it does not fit beside the job id, the count gives way, never
 * the id (the next push then reads the count as not known).
 */
export function statusDescription(
  word: string,
  jobId: string,
  runId: number,
  uses?: number,
): { text: string; fits: true } | { text: string; fits: false; why: string } {
  const text = `${word}: job ${jobId} · run ${runId}`;
  if (/[\s·]/.test(jobId) || hasUnsafe(jobId))
    return {
      text: `${word}: job id not shown · run ${runId}`,
      fits: false,
      why: 'holds characters a commit status must not show',
    };
  const counted = uses === undefined ? undefined : `${text} · ${uses} ${uses === 1 ? 'use' : 'uses'}`;
  if (counted && [...counted].length <= MAX_DESCRIPTION) return { text: counted, fits: true };
  if ([...text].length > MAX_DESCRIPTION)
    return {
      text: `${word}: job id too long to show · run ${runId}`,
      fits: false,
      why: "is too long for a commit status's 140 characters",
    };
  return { text, fits: true };
}

/**
 * The words of the statuses a run writes about the job it sent or waits for: its writers take them
 * from here, so that reading one back knows it. Any other word naming a job is a skip's, which
 * names the thread's job so that a branch's next push finds it, though that run sent nothing.
 */
export const JOB_WORDS = {
  working: 'Working',
  completed: 'Completed',
  noChanges: 'Completed, no changes',
  failed: 'Failed',
  archived: 'Archived',
  goesOn: 'Goes on in the service',
  cancelled: 'Cancelled',
  timedOut: 'Timed out',
  stopped: 'Stopped',
  lost: 'No longer known to the service',
} as const;
const JOB_WORD_SET: ReadonlySet<string> = new Set(Object.values(JOB_WORDS));
/** The words of a job's end: what the service said of it, never the run's own stop. */
const END_WORDS: ReadonlySet<string> = new Set([
  JOB_WORDS.completed,
  JOB_WORDS.noChanges,
  JOB_WORDS.failed,
  JOB_WORDS.archived,
  JOB_WORDS.lost,
]);

/** The words of a job left at work (goes on, or past its timeout): a branch's may carry what it supersedes. */
const AT_WORK_WORDS: ReadonlySet<string> = new Set([JOB_WORDS.goesOn, JOB_WORDS.timedOut]);
/** `owner/repo#N`: a pull request on the run's own GitHub, as a status names it. */
const PULL_REF = /^([A-Za-z0-9_-]{1,39})\/([A-Za-z0-9._-]{1,100})#([1-9][0-9]{0,9})$/;

/**
 * A branch's word for a job left at work, naming the docs pull request (`owner/repo#N`, on the
 * run's GitHub) an earlier job of the branch left, which the run that writes this job's end closes
 * once the job has its own: a branch has no note to keep it in. Any other word is as it is.
 */
export function supersedingWord(word: string, ref: string | undefined): string {
  return ref && AT_WORK_WORDS.has(word) && PULL_REF.test(ref) ? `${word}, superseding ${ref}` : word;
}

/** The pull request a status's `owner/repo#N` names. */
export function pullOfRef(ref: string): { owner: string; repo: string; number: number } | undefined {
  const [, owner, repo, number] = PULL_REF.exec(ref) ?? [];
  return owner && repo && number ? { owner, repo, number: Number(number) } : undefined;
}

/**
 * A status for a run that has no job the service confirmed (it failed before, or a follow-up was
 * not delivered): it names only the run, so neither a re-run nor the branch's next push takes a
 * job from it.
 */
export function runOnlyDescription(word: string, runId: number): string {
  return `${word} · run ${runId}`;
}

/**
 * A run whose follow-up the service did not confirm (a 5xx, a timeout or a refusal after the
 * send): the thread's job is there, so the words name it and say what a re-run does, but not in
 * the `: job <id> · run` form, so neither a re-run nor the branch's next push takes a job from it.
 * An id a status must not show, or too long for one, is left out.
 */
export function unconfirmedFollowUp(jobId: string, runId: number, cancelled: boolean): string {
  const start = cancelled ? 'Cancelled' : 'Stopped';
  const end = 'not confirmed; a re-run sends it again';
  const named = runOnlyDescription(`${start}: follow-up to job ${jobId} ${end}`, runId);
  return /[\s·]/.test(jobId) || hasUnsafe(jobId) || [...named].length > MAX_DESCRIPTION
    ? `${start}: follow-up to the thread’s job ${end}`
    : `${start}: follow-up to job ${jobId} ${end}`;
}

/**
 * What a description this step wrote says. The job id holds no space and no `·`, so each form
 * reads one way only; one without a count (written without `budget`, or before counts were kept)
 * has no `uses`.
 */
export function readStatusNote(description: string | null): StatusNote | undefined {
  const found = /^(.*): job (\S+) · run (\d+)(?: · (\d{1,9}) uses?)?$/s.exec(description ?? '');
  if (found) {
    const [, said = '', job, run, uses] = found;
    const [, carrying = '', supersedes] = /^(.*), superseding (\S+)$/s.exec(said) ?? [];
    const carried = supersedes !== undefined && supersedingWord(carrying, supersedes) === said;
    const word = carried ? carrying : said;
    return {
      job,
      run: Number(run),
      ...(uses !== undefined ? { uses: Number(uses) } : {}),
      ...(carried ? { supersedes } : {}),
      ...(JOB_WORD_SET.has(word) ? {} : { held: true as const }),
      ...(word === JOB_WORDS.completed ? { linked: true as const } : {}),
      ...(word === JOB_WORDS.goesOn ? { goesOn: true as const } : {}),
      ...(END_WORDS.has(word) ? { ended: true as const } : {}),
      ...(word === JOB_WORDS.timedOut ? { overdue: true as const } : {}),
    };
  }
  const unnamed = / · run (\d+)$/.exec(description ?? '');
  return unnamed ? { run: Number(unnamed[1]) } : undefined;
}

/**
 * What a status says, with the docs pull request its target links when it is a completed job's:
 * the branch's record that its job opened that pull request.
 */
function withDocsPr(note: StatusNote | undefined, target: string | undefined): StatusNote | undefined {
  const docsPr = note?.linked && note.job ? docsPrOf({ prLink: target }) : undefined;
  return note && docsPr ? { ...note, docsPr } : note;
}

/**
 * This step's status on one commit of this repository: written as the job goes (pending, then
 * how it ended), and read back by a re-run or the branch's next push — only a status the token's
 * own identity wrote, since anyone with `statuses: write` can write the same context. Faults are
 * warnings.
 */
export class CommitStatus {
  constructor(
    /** Made on first use: a status never written builds no client. */
    private readonly api: () => GitHubApi,
    /** The login the token acts as: the only creator whose statuses count. */
    private readonly identity: (signal: AbortSignal) => Promise<string>,
    private readonly run: RunContext,
    /** This step's context: a waiting job's record keeps it, so that its end resolves this status. */
    readonly context: string,
    /** Where a status links when its own target is not a plain http(s) URL: the workflow run. */
    private readonly runUrl: string,
    /** Where each status set is said (the log's info). */
    private readonly say: (line: string) => void = () => undefined,
  ) {}

  /** Writes the status; a fault is a warning. */
  async write(
    sha: string,
    state: StatusState,
    description: string,
    target: string,
    signal: AbortSignal,
    warn: Warn,
  ): Promise<void> {
    const { owner, repo } = this.run.repo;
    try {
      await this.api().createStatus(
        {
          owner,
          repo,
          sha,
          state,
          // A link GitHub would refuse (not http(s)) is left for the run's.
          target_url: isPlainHttpUrl(target) ? target : this.runUrl,
          description,
          context: this.context,
        },
        signal,
      );
      this.say(`Set the commit status "${this.context}" on ${sha.slice(0, 12)}: ${state}, "${description}".`);
    } catch (error) {
      warn(
        describeGitHubFault(error, {
          what: `set the commit status on ${sha.slice(0, 12)}`,
          token: 'githubToken',
          permission: 'statuses: write',
          repo: `${owner}/${repo}`,
        }),
      );
    }
  }

  /**
   * What this step's newest status on `sha` says, or `undefined` (none, or a commit GitHub no
   * longer has). Other faults are the caller's: a thread must not read a fault as "no job". The
   * list of every status, not the combined status: its entries name no creator, and show only the
   * newest of each context.
   */
  async read(sha: string, signal: AbortSignal): Promise<StatusNote | undefined> {
    const { owner, repo } = this.run.repo;
    try {
      const login = await this.identity(signal);
      let pages = 0;
      for await (const statuses of this.api().statuses({ owner, repo, ref: sha }, signal)) {
        const mine = statuses.find((s) => s.context === this.context && s.creator === login);
        if (mine) return withDocsPr(readStatusNote(mine.description), mine.target);
        if (++pages >= MAX_PAGES) break;
      }
      return undefined;
    } catch (error) {
      // A commit GitHub no longer has holds no status; a 404 to the identity query says nothing
      // of the commit, and read as "none" it would start a second job.
      const fault = faultOf(error);
      if (fault.gone && !fault.identity) return undefined;
      throw error;
    }
  }
}
