import * as z from 'zod/mini';
import { ActionFailure } from '../service/errors.js';
import { tokenNeeds } from './token-needs.js';
import {
  allowedActors,
  apiKey,
  autoMerge,
  baseUrl,
  bool,
  budget,
  followUp,
  contextLimit,
  contextMode,
  duration,
  headerSecret,
  labels,
  MIN_POLL_INTERVAL_MS,
  optional,
  pathLines,
  pathSegment,
  PRINTABLE_ASCII,
  reviewers,
  trigger,
  triggerLabel,
  type Check,
  type MergeMethod,
  type Problem,
} from './input-rules.js';
import { quote } from '../core/untrusted.js';
import { readPromptFile } from './prompt-file.js';

/** A bad input: the message names it and says what is expected. No request has been made. */
export class InputError extends ActionFailure {
  override name = 'InputError';
}

/** Reads one input as the runner passes it (`core.getInput`, which trims both ends). */
export type ReadInput = (name: string) => string;

class BrokenRule extends Error {}
const problem: Problem = (message) => {
  throw new BrokenRule(message);
};

/**
 * A rule as a zod schema (`zod/mini`, the entry point that costs the action's start-up least):
 * the first problem becomes the input's one issue.
 */
const rule = <T>(check: Check<T>) =>
  z.pipe(
    z.string(),
    z.transform((text: string, ctx) => {
      try {
        return check(text, problem);
      } catch (error) {
        if (!(error instanceof BrokenRule)) throw error;
        ctx.issues.push({ code: 'custom', message: error.message, input: text });
        return z.NEVER;
      }
    }),
  );

/**
 * Defaults of the inputs added with the GitHub side, as action.yml gives them (a test keeps them
 * equal): the runner always passes a default, but a local run (local-action, the demo) may pass
 * nothing, and an input it does not know of must not fail it.
 */
export const OPTIONAL_DEFAULTS = {
  comment: 'false',
  context: 'none',
  contextLimit: '20000',
  thread: 'false',
  status: 'false',
  dryRun: 'false',
  followUp: 'every-push',
  sweep: 'false',
  draft: 'false',
} as const;

// The inputs action.yml declares, by their names there, each with its rule; checked in this order,
// and the first bad input is the one reported. `promptFile`, `githubToken` and `docsToken` are
// read apart: whether they are read at all depends on the others.
const schema = z.object({
  /** Absent only when `jobId` is given (or a `/docs` request gives it). */
  prompt: z.string(),
  projectId: rule(pathSegment('projectId')),
  apiKey: rule(apiKey),
  /** Without a trailing slash; may carry a path prefix. */
  baseUrl: rule(baseUrl),
  wait: rule(bool('wait')),
  /** In milliseconds. */
  timeout: rule(duration('timeout', 1000, '1s')),
  /** In milliseconds. */
  pollInterval: rule(duration('pollInterval', MIN_POLL_INTERVAL_MS, '1s')),
  /** An existing job: the prompt goes to it as a follow-up, or, without a prompt, it is waited for. */
  jobId: rule(optional(pathSegment('jobId'))),
  /** Keep one comment on the pull request or issue that started the run up to date with the job. */
  comment: rule(bool('comment')),
  /** Labels for the docs pull request. */
  labels: rule(labels),
  /** Reviewers to request on the docs pull request: logins, and `org/team` for teams. */
  reviewers: rule(reviewers),
  /** `auto`: what the triggering event changed is appended to the prompt. */
  context: rule(contextMode),
  /** The most characters of context appended. */
  contextLimit: rule(contextLimit),
  /** A phrase such as `/docs`: on a comment event, only a comment that begins with it is acted on. */
  trigger: rule(trigger),
  /** Who besides writers may start a job from events anyone can cause: logins, `name[bot]`, `*`. */
  allowedActors: rule(allowedActors),
  /** One job per pull request or issue (and branch, with `status`): later runs follow it up. */
  thread: rule(bool('thread')),
  /** A commit status on the triggering commit follows the job. */
  status: rule(bool('status')),
  /** GitHub filter patterns: on push and pull request events, a change none of whose files match is skipped. */
  paths: rule(pathLines),
  /** A label that asks for docs on `labeled` (pull requests and issues); removed when the run ends. */
  triggerLabel: rule(optional(triggerLabel)),
  /** Enable auto-merge on the docs pull request once the job completed with one. */
  autoMerge: rule(autoMerge),
  /** Decide and gather as usual, then send nothing: no job, no message, nothing written to GitHub. */
  dryRun: rule(bool('dryRun')),
  /** The most quota uses one thread may spend over its life; absent for no limit. */
  budget: rule(budget),
  /** With `thread`: which later events send to the thread's job. */
  followUp: rule(followUp),
  /** A report run: the end of every job a thread's run left at work, written; no prompt, nothing sent. */
  sweep: rule(bool('sweep')),
  /** With `thread`: the docs pull request stays a draft until the code pull request merges. */
  draft: rule(bool('draft')),
});

/** Everything the action acts on, validated before the first request: the schema's output. */
export type Inputs = Omit<
  z.output<typeof schema>,
  'prompt' | 'jobId' | 'trigger' | 'triggerLabel' | 'autoMerge' | 'budget'
> & {
  prompt?: string;
  jobId?: string;
  trigger?: string;
  triggerLabel?: string;
  autoMerge?: MergeMethod;
  /** The most quota uses one thread may spend over its life; absent for no limit. */
  budget?: number;
  /** The file the prompt was read from, as the workflow named it. */
  promptFile?: string;
  /** The token for this repository's API; empty when no GitHub feature needs it. */
  githubToken: string;
  /** The token for the docs repository: `docsToken`, else `githubToken`; empty when not needed. */
  docsToken: string;
  /**
   * Whether the workflow set `docsToken` itself: only such a token is sent to a docs pull request
   * on another GitHub (github.com from an Enterprise Server run); `githubToken` never leaves its own.
   */
  docsTokenGiven: boolean;
};

/**
 * What the run's event means for the inputs' rules, as `features.ts` reads it from the event: the
 * inputs themselves know no event.
 */
export interface EventNeeds {
  /** A comment event: with a `trigger`, the comment itself may be the whole prompt. */
  commentAsks?: boolean;
  /** Who caused the event may be asked of GitHub: a usable githubToken is kept for it. */
  accessLookUp?: boolean;
  /** A pull request from a fork, on an event GitHub passes no secrets to: why apiKey is empty. */
  secretlessFork?: { repo?: string };
}

function forkMessage(fork: { repo?: string }): string {
  const from = fork.repo === undefined ? 'a fork' : `the fork ${quote(fork.repo, 140)}`;
  return `Input "apiKey" is empty: this run is for a pull request from ${from}, and GitHub passes no secrets to runs for pull requests from forks. Skip such runs with if: github.event.pull_request == null || github.event.pull_request.head.repo.full_name == github.repository on the step or its job.`;
}

/** The words for what needs githubToken, in the messages that ask for it. */
const GITHUB_TOKEN_NEED =
  'comment, thread, status or sweep is true, context is auto, or trigger, triggerLabel or paths is set';

export function readInputs(
  read: ReadInput,
  workspace = process.env.GITHUB_WORKSPACE || process.cwd(),
  event: EventNeeds = {},
): Inputs {
  // Checked first, as `prompt` comes first: its rule depends on other inputs. On a comment event
  // with a trigger, the comment itself may be the whole prompt.
  const promptFile = read('promptFile');
  const requestMayCome = read('trigger') !== '' && event.commentAsks === true;
  const sweeps = read('sweep').toLowerCase() === 'true';
  if (read('prompt') === '' && read('jobId') === '' && promptFile === '' && !requestMayCome && !sweeps) {
    throw new InputError(
      'Input "prompt" is required (unless promptFile names a file that holds it, or jobId names a job to wait for): the instruction for the agent.',
    );
  }
  if (promptFile !== '' && read('prompt') !== '') {
    throw new InputError(
      'Input "promptFile" and input "prompt" are both set: give the prompt in one of them.',
    );
  }
  const defaults: Readonly<Record<string, string>> = OPTIONAL_DEFAULTS;
  const parsed = schema.safeParse(
    Object.fromEntries(Object.keys(schema.shape).map((name) => [name, read(name) || (defaults[name] ?? '')])),
  );
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    if (first?.path[0] === 'apiKey' && read('apiKey') === '') {
      // The secret named is most likely fine: GitHub withheld it, and the workflow should skip.
      if (event.secretlessFork) throw new InputError(forkMessage(event.secretlessFork));
    }
    throw new InputError(first?.message ?? 'The inputs are not valid.');
  }
  const {
    prompt: written,
    jobId,
    trigger: phrase,
    triggerLabel: label,
    autoMerge: merge,
    budget: limit,
    ...rest
  } = parsed.data;
  // Read last, once every other input is known to be good.
  let prompt = written;
  if (promptFile) {
    const file = readPromptFile(promptFile, workspace);
    if ('problem' in file) throw new InputError(file.problem);
    prompt = file.text;
  }
  const needs = tokenNeeds({
    ...rest,
    ...(phrase ? { trigger: phrase } : {}),
    ...(label ? { triggerLabel: label } : {}),
    ...(merge ? { autoMerge: merge } : {}),
  });
  const githubToken =
    token(read, 'githubToken', needs.github ? GITHUB_TOKEN_NEED : undefined) ||
    // On an event anyone can cause, an actor the payload does not vouch for is looked up with it.
    (event.accessLookUp ? usableToken(read('githubToken')) : '');
  const docsNeed = needs.docs ? 'labels, reviewers, thread, sweep or autoMerge are set' : undefined;
  // Without a docsToken, the docs repository is reached with githubToken (on this GitHub only).
  const givenDocsToken = token(read, 'docsToken', docsNeed);
  const docsToken = givenDocsToken || (docsNeed ? token(read, 'githubToken', docsNeed) : '');
  const inputs: Inputs = {
    ...rest,
    githubToken,
    docsToken,
    docsTokenGiven: givenDocsToken !== '',
    ...(prompt ? { prompt } : {}),
    ...(jobId ? { jobId } : {}),
    ...(promptFile ? { promptFile } : {}),
    ...(phrase ? { trigger: phrase } : {}),
    ...(label ? { triggerLabel: label } : {}),
    ...(merge ? { autoMerge: merge } : {}),
    ...(limit !== undefined ? { budget: limit } : {}),
  };
  if (inputs.sweep && inputs.jobId) {
    throw new InputError(
      'Input "jobId" and input "sweep" are both set: a report run finds the jobs threads left at work; give one of them.',
    );
  }
  if (inputs.thread && inputs.jobId) {
    throw new InputError(
      'Input "jobId" and input "thread" are both set: a thread finds its own job; give one of them.',
    );
  }
  // The total a budget is held to is kept in the thread's note: without a thread there is none.
  if (inputs.budget !== undefined && !inputs.thread) {
    throw new InputError(
      'Input "budget" is set but thread is not true: a budget counts the quota uses of one thread; set thread: true or leave budget empty.',
    );
  }
  if (inputs.followUp !== 'every-push' && !inputs.thread) {
    throw new InputError(
      `Input "followUp" is ${inputs.followUp} but thread is not true: it says which runs of a thread send to its job; set thread: true or leave followUp at every-push.`,
    );
  }
  // A draft follows the code pull request's life: only a thread has one.
  if (inputs.draft && !inputs.thread) {
    throw new InputError(
      'Input "draft" is true but thread is not true: the docs pull request is kept a draft until the code pull request merges, and only a thread follows one; set thread: true or leave draft false.',
    );
  }
  if (needs.github && !inputs.githubToken) {
    throw new InputError(
      `Input "githubToken" is empty, but ${GITHUB_TOKEN_NEED}: leave githubToken at its default (\${{ github.token }}) or pass a token for this repository.`,
    );
  }
  if ((inputs.labels.length > 0 || inputs.reviewers.length > 0 || inputs.autoMerge) && !inputs.docsToken) {
    throw new InputError(
      'Input "docsToken" is empty (and so is githubToken), but labels, reviewers or autoMerge are set: pass a token with pull-requests: write on the docs repository.',
    );
  }
  return inputs;
}

/**
 * A `${{ … }}` left as written: the runner evaluates expressions in input defaults, but a local
 * runner (`@github/local-action`) passes `githubToken`'s default `${{ github.token }}` as text.
 */
const UNEVALUATED = /^\$\{\{[\s\S]*\}\}$/;

/** Whether a token input holds a value to use: not empty, and not an expression nothing evaluated. */
export function givenToken(value: string): boolean {
  return value !== '' && !UNEVALUATED.test(value);
}

/**
 * A token, read only when a GitHub feature needs it (`neededFor` says which): a run that asks
 * for none of them never fails on a token it does not use. An expression nothing evaluated reads
 * as no token, and is named as such when a feature needs one.
 */
function token(read: ReadInput, name: 'githubToken' | 'docsToken', neededFor: string | undefined): string {
  const value = read(name);
  if (!neededFor) return '';
  if (UNEVALUATED.test(value)) {
    throw new InputError(
      `Input "${name}" is ${quote(value, 60)}, an expression nothing evaluated (a local run has no github.token), but ${neededFor}: pass a token as ${name}.`,
    );
  }
  return headerSecret(name)(value, (message) => {
    throw new InputError(message);
  });
}

/** A token to use if it is one, else none: for work that goes without it when it must. */
function usableToken(value: string): string {
  return givenToken(value) && PRINTABLE_ASCII.test(value) ? value : '';
}
