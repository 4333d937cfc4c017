import * as z from 'zod/mini';
import { DURATION_FORMS, parseDuration } from './duration.js';
import { ActionFailure } from './errors.js';
import { pullRequestFork, readEvent } from './event.js';
import { mayBeOpen } from './gate.js';
import { hasUnsafe, quote } from './untrusted.js';
import { readPromptFile } from './prompt-file.js';

/** A bad input: the message names it and says what is expected. No request has been made. */
export class InputError extends ActionFailure {
  override name = 'InputError';
}

/** Reads one input as the runner passes it (`core.getInput`, which trims both ends). */
export type ReadInput = (name: string) => string;

const MIN_POLL_INTERVAL_MS = 1000;
const MAX_TIMEOUT_MS = 24 * 3600 * 1000;

/** Says what is wrong with an input, in the one sentence the step fails with; never returns. */
type Problem = (message: string) => never;
/** An input's rule: its text in, its value out, or a call to `problem`. */
type Check<T> = (text: string, problem: Problem) => T;

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

// `.` and `..` would be resolved away as dot segments by every URL parser, even percent-encoded,
// so `projectId: ..` would call a different endpoint than the one named.
const pathSegment =
  (name: string): Check<string> =>
  (text, problem) => {
    if (text === '') problem(`Input "${name}" is required.`);
    if (text.length > 200) problem(`Input "${name}" is longer than 200 characters.`);
    if (/[\s\u0000-\u001f\u007f]/.test(text))
      problem(`Input "${name}" must not contain spaces or control characters.`);
    if (text === '.' || text === '..') problem(`Input "${name}" must not be "." or "..".`);
    return text;
  };

/** Empty means "not given"; anything else must pass `check`. */
const optional =
  (check: Check<string>): Check<string> =>
  (text, problem) =>
    text === '' ? text : check(text, problem);

/** What a header value may hold: printable ASCII, no spaces, no line breaks. */
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

// A header value: a line break would let the secret's text add headers of its own, and anything
// outside printable ASCII is refused by the HTTP client after validation would have passed.
const headerSecret =
  (name: string): Check<string> =>
  (text, problem) => {
    if (!PRINTABLE_ASCII.test(text))
      problem(
        `Input "${name}" may only hold printable ASCII characters, without spaces or line breaks; copy it again.`,
      );
    return text;
  };

const apiKey: Check<string> = (text, problem) => {
  if (text === '')
    problem(
      'Input "apiKey" is required: pass an admin API key from a secret, e.g. apiKey: ${{ secrets.DOCS_API_KEY }}.',
    );
  return headerSecret('apiKey')(text, problem);
};

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
} as const;

const MIN_CONTEXT_LIMIT = 1000;
const MAX_CONTEXT_LIMIT = 1_000_000;

const contextMode: Check<'auto' | 'none'> = (text, problem) => {
  const value = text.toLowerCase();
  if (value === 'auto' || value === 'none') return value;
  return problem(`Input "context" must be auto or none, got ${quote(text, 40)}.`);
};

const contextLimit: Check<number> = (text, problem) => {
  const value = Number(text);
  if (/^\d+$/.test(text) && value >= MIN_CONTEXT_LIMIT && value <= MAX_CONTEXT_LIMIT) return value;
  return problem(
    `Input "contextLimit" must be a whole number of characters from ${MIN_CONTEXT_LIMIT} to ${MAX_CONTEXT_LIMIT}, got ${quote(text, 40)}.`,
  );
};

/** GitHub's label names are at most 50 characters; an issue takes at most 100 labels. */
const MAX_LABEL = 50;
const MAX_LABELS = 100;
// A login: letters, digits, hyphens, and the underscore of managed users on GHE.com
// (handle_shortcode); a team: org/slug.
const LOGIN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const TEAM_SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Comma- or newline-separated, each entry trimmed; empty entries and repeats dropped. */
function list(text: string): string[] {
  return [...new Set(text.split(/[,\n]/).map((entry) => entry.trim()))].filter(Boolean);
}

/**
 * Why a label name cannot be used, or `undefined`. A name goes into a URL's path when it is taken
 * off again, where `.` and `..` are dot segments that change which resource is asked for and a `/`
 * is one that servers and proxies may decode; controls and invisible characters would show one
 * name and be another.
 */
function badLabel(name: string): string | undefined {
  if (name.length > MAX_LABEL) return `is longer than ${MAX_LABEL} characters`;
  if (name === '.' || name === '..') return 'is a dot segment of a URL path';
  if (name.includes('/')) return 'holds a /';
  if (hasUnsafe(name)) return 'holds a control, invisible or bidirectional character';
  return undefined;
}

const labels: Check<string[]> = (text, problem) => {
  const names = list(text);
  const bad = names.find((name) => badLabel(name) !== undefined);
  if (bad !== undefined) {
    problem(
      `Input "labels" has ${quote(bad, 60)}, which ${badLabel(bad)}: give label names of at most ${MAX_LABEL} characters, not . or .., without a / or control characters.`,
    );
  }
  if (names.length > MAX_LABELS) {
    problem(`Input "labels" names ${names.length} labels; GitHub takes at most ${MAX_LABELS}.`);
  }
  return names;
};

// An actor: a login, a bot (`name[bot]`), or `*` for every human account.
const ACTOR = /^(\*|[A-Za-z0-9][A-Za-z0-9_-]{0,99}(\[bot\])?)$/;

const allowedActors: Check<string[]> = (text, problem) => {
  const names = list(text);
  const bad = names.find((name) => !ACTOR.test(name));
  if (bad !== undefined) {
    problem(
      `Input "allowedActors" has ${quote(bad, 60)}: expected GitHub logins, bots as name[bot], or * for every human account, separated by commas or lines.`,
    );
  }
  return names;
};

const trigger: Check<string> = (phrase, problem) => {
  if (phrase.length > 50 || /[\u0000-\u001f\u007f]/.test(phrase))
    problem('Input "trigger" must be a phrase of at most 50 characters on one line, e.g. /docs.');
  return phrase;
};

const triggerLabel: Check<string> = (name, problem) => {
  const why = name.includes(',') ? 'holds a comma' : badLabel(name);
  if (why)
    problem(
      `Input "triggerLabel" is ${quote(name, 60)}, which ${why}: give one label of at most ${MAX_LABEL} characters, not . or .., without commas, a / or control characters, e.g. docs.`,
    );
  return name;
};

/** One pattern a line; whether GitHub's filters read each is checked with the matcher, before any request. */
const pathLines: Check<string[]> = (text) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

const MERGE_METHODS = ['merge', 'squash', 'rebase'] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];

const autoMerge: Check<MergeMethod | ''> = (text, problem) => {
  const value = text.toLowerCase();
  if (value === '' || (MERGE_METHODS as readonly string[]).includes(value)) return value as MergeMethod | '';
  return problem(
    `Input "autoMerge" must be merge, squash or rebase (or empty for none), got ${quote(text, 40)}.`,
  );
};

const reviewers: Check<string[]> = (text, problem) => {
  const names = list(text);
  const bad = names.find((name) => {
    const [owner = '', team, ...rest] = name.split('/');
    return !LOGIN.test(owner) || rest.length > 0 || (team !== undefined && !TEAM_SLUG.test(team));
  });
  if (bad !== undefined) {
    problem(
      `Input "reviewers" has ${quote(bad, 60)}: expected GitHub logins (octocat) and teams as org/team-slug, separated by commas or lines.`,
    );
  }
  return names;
};

const baseUrl: Check<string> = (text, problem) => {
  if (text === '') problem('Input "baseUrl" is required: the service\'s URL, e.g. https://api.mintlify.com.');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Not echoed if it may hold credentials (`user:password@`).
    const got = text.includes('@') ? '' : `got ${quote(text, 100)}; `;
    return problem(`Input "baseUrl" is not a URL: ${got}expected e.g. https://api.mintlify.com.`);
  }
  // The value may hold credentials, so from here on it is not echoed.
  if (url.username || url.password) problem('Input "baseUrl" must not contain a user name or password.');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problem(`Input "baseUrl" must be an https URL, not ${url.protocol.replace(':', '')}.`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    problem(
      `Input "baseUrl" must use https: the API key is not sent in clear text to ${url.hostname} (http is allowed only for localhost, 127.0.0.0/8 and [::1]).`,
    );
  }
  if (url.search || url.hash) problem('Input "baseUrl" must not have a query string or a fragment.');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
};

const bool =
  (name: string): Check<boolean> =>
  (text, problem) => {
    const value = text.toLowerCase();
    if (value === 'true') return true;
    if (value === 'false') return false;
    return problem(`Input "${name}" must be true or false, got ${quote(text, 40)}.`);
  };

const duration =
  (name: string, minMs: number, minText: string): Check<number> =>
  (text, problem) => {
    const ms = parseDuration(text);
    if (ms === undefined)
      return problem(
        `Input "${name}" is not a duration: got ${quote(text, 40)}; expected ${DURATION_FORMS}.`,
      );
    if (ms < minMs) problem(`Input "${name}" must be at least ${minText}, got ${quote(text, 40)}.`);
    if (ms > MAX_TIMEOUT_MS) problem(`Input "${name}" must be at most 24h, got ${quote(text, 40)}.`);
    return ms;
  };

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
});

/** Everything the action acts on, validated before the first request: the schema's output. */
export type Inputs = Omit<
  z.output<typeof schema>,
  'prompt' | 'jobId' | 'trigger' | 'triggerLabel' | 'autoMerge'
> & {
  prompt?: string;
  jobId?: string;
  trigger?: string;
  triggerLabel?: string;
  autoMerge?: MergeMethod;
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

/** The runner's variables that inputs depend on; tests pass their own. */
export type RunnerEnv = Readonly<Record<string, string | undefined>>;

// Runs of these events for a pull request from a fork get no secrets; pull_request_target does.
const SECRETLESS_FOR_FORKS = new Set(['pull_request', 'pull_request_review', 'pull_request_review_comment']);

/** Whether the run is for a pull request from a fork; read only when apiKey is empty, to say why. */
function forkOfRun(env: RunnerEnv): { repo?: string } | undefined {
  if (!SECRETLESS_FOR_FORKS.has(env.GITHUB_EVENT_NAME ?? '') || !env.GITHUB_EVENT_PATH) return undefined;
  return pullRequestFork(readEvent(env).payload);
}

function forkMessage(fork: { repo?: string }): string {
  const from = fork.repo === undefined ? 'a fork' : `the fork ${quote(fork.repo, 140)}`;
  return `Input "apiKey" is empty: this run is for a pull request from ${from}, and GitHub passes no secrets to runs for pull requests from forks. Skip such runs with if: github.event.pull_request == null || github.event.pull_request.head.repo.full_name == github.repository on the step or its job.`;
}

/** `env` is read for the event only when apiKey is empty, to tell why. */
/** The comment events on which a `trigger` phrase makes the comment the request. */
export const REQUEST_EVENTS = new Set(['issue_comment', 'pull_request_review_comment']);

export function readInputs(
  read: ReadInput,
  workspace = process.env.GITHUB_WORKSPACE || process.cwd(),
  env: RunnerEnv = process.env,
): Inputs {
  // Checked first, as `prompt` comes first: its rule depends on other inputs. On a comment event
  // with a trigger, the comment itself may be the whole prompt.
  const promptFile = read('promptFile');
  const requestMayCome = read('trigger') !== '' && REQUEST_EVENTS.has(env.GITHUB_EVENT_NAME ?? '');
  if (read('prompt') === '' && read('jobId') === '' && promptFile === '' && !requestMayCome) {
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
      const fork = forkOfRun(env);
      if (fork) throw new InputError(forkMessage(fork));
    }
    throw new InputError(first?.message ?? 'The inputs are not valid.');
  }
  const {
    prompt: written,
    jobId,
    trigger: phrase,
    triggerLabel: label,
    autoMerge: merge,
    ...rest
  } = parsed.data;
  // Read last, once every other input is known to be good.
  let prompt = written;
  if (promptFile) {
    const file = readPromptFile(promptFile, workspace);
    if ('problem' in file) throw new InputError(file.problem);
    prompt = file.text;
  }
  // The thread's job is kept in the comment.
  const comment = rest.comment || rest.thread;
  const githubToken =
    token(
      read,
      'githubToken',
      comment ||
        rest.context === 'auto' ||
        Boolean(phrase) ||
        rest.status ||
        Boolean(label) ||
        rest.paths.length > 0
        ? 'comment, thread or status is true, context is auto, or trigger, triggerLabel or paths is set'
        : undefined,
    ) ||
    // On an event anyone can cause, an actor the payload does not vouch for is looked up with it.
    (mayBeOpen(env.GITHUB_EVENT_NAME ?? '') ? usableToken(read('githubToken')) : '');
  const docsNeed =
    rest.labels.length > 0 || rest.reviewers.length > 0 || rest.thread || Boolean(merge)
      ? 'labels, reviewers, thread or autoMerge are set'
      : undefined;
  // Without a docsToken, the docs repository is reached with githubToken (on this GitHub only).
  const givenDocsToken = token(read, 'docsToken', docsNeed);
  const docsToken = givenDocsToken || (docsNeed ? token(read, 'githubToken', docsNeed) : '');
  const inputs: Inputs = {
    ...rest,
    comment,
    githubToken,
    docsToken,
    docsTokenGiven: givenDocsToken !== '',
    ...(prompt ? { prompt } : {}),
    ...(jobId ? { jobId } : {}),
    ...(promptFile ? { promptFile } : {}),
    ...(phrase ? { trigger: phrase } : {}),
    ...(label ? { triggerLabel: label } : {}),
    ...(merge ? { autoMerge: merge } : {}),
  };
  if (inputs.thread && inputs.jobId) {
    throw new InputError(
      'Input "jobId" and input "thread" are both set: a thread finds its own job; give one of them.',
    );
  }
  if (
    (inputs.comment ||
      inputs.context === 'auto' ||
      inputs.trigger ||
      inputs.status ||
      inputs.triggerLabel ||
      inputs.paths.length > 0) &&
    !inputs.githubToken
  ) {
    throw new InputError(
      'Input "githubToken" is empty, but comment, thread or status is true, context is auto, or trigger, triggerLabel or paths is set: leave githubToken at its default (${{ github.token }}) or pass a token for this repository.',
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

/**
 * Whether any GitHub work is asked for on this event; without it the GitHub client is never
 * loaded. A `trigger` needs it only on the comment events it acts on (the reaction).
 */
export function wantsGitHub(inputs: Inputs, eventName = ''): boolean {
  return (
    (inputs.trigger !== undefined && REQUEST_EVENTS.has(eventName)) ||
    (inputs.triggerLabel !== undefined && LABEL_EVENTS.has(eventName)) ||
    (inputs.paths.length > 0 && PATHS_EVENTS.has(eventName)) ||
    inputs.comment ||
    inputs.status ||
    inputs.labels.length > 0 ||
    inputs.reviewers.length > 0 ||
    inputs.autoMerge !== undefined ||
    inputs.context === 'auto'
  );
}

/** The events on which a `triggerLabel` can be applied: a pull request's or an issue's `labeled`. */
export const LABEL_EVENTS = new Set(['pull_request', 'pull_request_target', 'issues']);
/** The events `paths` gates: what they changed is a list of files. */
export const PATHS_EVENTS = new Set(['push', 'pull_request', 'pull_request_target']);

/** The hosts to which a key may go over plain http: this machine. */
export function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}
