// Each input's rule: its text in, its value out, or the one sentence the step fails with. Pure,
// and known to no event: `inputs.ts` applies them in action.yml's order.
import { DURATION_FORMS, parseDuration } from '../core/duration.js';
import type { MergeMethod } from '../core/ports.js';
import { badLabel, isReviewer, MAX_LABEL } from '../core/names.js';
import { quote } from '../core/untrusted.js';
import { FOLLOW_UP_POLICIES, type FollowUpPolicy } from './follow-up.js';

export const MIN_POLL_INTERVAL_MS = 1000;
const MAX_TIMEOUT_MS = 24 * 3600 * 1000;

/** Says what is wrong with an input, in the one sentence the step fails with; never returns. */
export type Problem = (message: string) => never;
/** An input's rule: its text in, its value out, or a call to `problem`. */
export type Check<T> = (text: string, problem: Problem) => T;

// `.` and `..` would be resolved away as dot segments by every URL parser, even percent-encoded,
// so `projectId: ..` would call a different endpoint than the one named.
export const pathSegment =
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
export const optional =
  (check: Check<string>): Check<string> =>
  (text, problem) =>
    text === '' ? text : check(text, problem);

/** What a header value may hold: printable ASCII, no spaces, no line breaks. */
export const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

// A header value: a line break would let the secret's text add headers of its own, and anything
// outside printable ASCII is refused by the HTTP client after validation would have passed.
export const headerSecret =
  (name: string): Check<string> =>
  (text, problem) => {
    if (!PRINTABLE_ASCII.test(text))
      problem(
        `Input "${name}" may only hold printable ASCII characters, without spaces or line breaks; copy it again.`,
      );
    return text;
  };

export const apiKey: Check<string> = (text, problem) => {
  if (text === '')
    problem(
      'Input "apiKey" is required: pass an admin API key from a secret, e.g. apiKey: ${{ secrets.DOCS_API_KEY }}.',
    );
  return headerSecret('apiKey')(text, problem);
};

const MIN_CONTEXT_LIMIT = 1000;
const MAX_CONTEXT_LIMIT = 1_000_000;

export const contextMode: Check<'auto' | 'none'> = (text, problem) => {
  const value = text.toLowerCase();
  if (value === 'auto' || value === 'none') return value;
  return problem(`Input "context" must be auto or none, got ${quote(text, 40)}.`);
};

export const contextLimit: Check<number> = (text, problem) => {
  const value = Number(text);
  if (/^\d+$/.test(text) && value >= MIN_CONTEXT_LIMIT && value <= MAX_CONTEXT_LIMIT) return value;
  return problem(
    `Input "contextLimit" must be a whole number of characters from ${MIN_CONTEXT_LIMIT} to ${MAX_CONTEXT_LIMIT}, got ${quote(text, 40)}.`,
  );
};

/** `followUp`: one of the policies, as written. */
export const followUp: Check<FollowUpPolicy> = (text, problem) => {
  const policy = FOLLOW_UP_POLICIES.find((name) => name === text);
  if (policy) return policy;
  return problem(`Input "followUp" must be every-push, at-merge or on-request, got ${quote(text, 40)}.`);
};

/** `budget`: empty for no limit, else a whole number of quota uses of at least 1. */
export const budget: Check<number | undefined> = (text, problem) => {
  if (text === '') return undefined;
  const value = Number(text);
  if (/^\d{1,9}$/.test(text) && value >= 1) return value;
  return problem(
    `Input "budget" must be a whole number of quota uses of at least 1 (or empty for no limit), got ${quote(text, 40)}.`,
  );
};

/** An issue takes at most 100 labels. */
const MAX_LABELS = 100;

/** Comma- or newline-separated, each entry trimmed; empty entries and repeats dropped. */
function list(text: string): string[] {
  return [...new Set(text.split(/[,\n]/).map((entry) => entry.trim()))].filter(Boolean);
}

export const labels: Check<string[]> = (text, problem) => {
  const names = list(text);
  // Added in a request's body, never named in a URL path: a `/` is a label name's own.
  const bad = names.find((name) => badLabel(name, false) !== undefined);
  if (bad !== undefined) {
    problem(
      `Input "labels" has ${quote(bad, 60)}, which ${badLabel(bad, false)}: give label names of at most ${MAX_LABEL} characters, not . or .., without control characters.`,
    );
  }
  if (names.length > MAX_LABELS) {
    problem(`Input "labels" names ${names.length} labels; GitHub takes at most ${MAX_LABELS}.`);
  }
  return names;
};

// An actor: a login, a bot (`name[bot]`), or `*` for every human account.
const ACTOR = /^(\*|[A-Za-z0-9][A-Za-z0-9_-]{0,99}(\[bot\])?)$/;

export const allowedActors: Check<string[]> = (text, problem) => {
  const names = list(text);
  const bad = names.find((name) => !ACTOR.test(name));
  if (bad !== undefined) {
    problem(
      `Input "allowedActors" has ${quote(bad, 60)}: expected GitHub logins, bots as name[bot], or * for every human account, separated by commas or lines.`,
    );
  }
  return names;
};

export const trigger: Check<string> = (phrase, problem) => {
  if (phrase.length > 50 || /[\u0000-\u001f\u007f]/.test(phrase))
    problem('Input "trigger" must be a phrase of at most 50 characters on one line, e.g. /docs.');
  // The docs service answers a mention of its app on the pull requests it opens: a request with
  // that phrase would reach it twice, once from the service's own app and once through the job.
  else if (/^@mintlify\b/i.test(phrase.trim()))
    problem(
      'Input "trigger" starts with @mintlify, which the docs service answers itself on the pull requests it opens: a comment beginning with it would reach the service twice. Use a phrase of your own, e.g. /docs.',
    );
  return phrase;
};

export const triggerLabel: Check<string> = (name, problem) => {
  const why = name.includes(',') ? 'holds a comma' : badLabel(name);
  if (why)
    problem(
      `Input "triggerLabel" is ${quote(name, 60)}, which ${why}: give one label of at most ${MAX_LABEL} characters, not . or .., without commas, a / or control characters, e.g. docs.`,
    );
  return name;
};

/** One pattern a line; whether GitHub's filters read each is checked with the matcher, before any request. */
export const pathLines: Check<string[]> = (text) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

const MERGE_METHODS: readonly MergeMethod[] = ['merge', 'squash', 'rebase'];
export type { MergeMethod };

export const autoMerge: Check<MergeMethod | ''> = (text, problem) => {
  const value = text.toLowerCase();
  if (value === '' || (MERGE_METHODS as readonly string[]).includes(value)) return value as MergeMethod | '';
  return problem(
    `Input "autoMerge" must be merge, squash or rebase (or empty for none), got ${quote(text, 40)}.`,
  );
};

export const reviewers: Check<string[]> = (text, problem) => {
  const names = list(text);
  const bad = names.find((name) => !isReviewer(name));
  if (bad !== undefined) {
    problem(
      `Input "reviewers" has ${quote(bad, 60)}: expected GitHub logins (octocat) and teams as org/team-slug, separated by commas or lines.`,
    );
  }
  return names;
};

export const baseUrl: Check<string> = (text, problem) => {
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

export const bool =
  (name: string): Check<boolean> =>
  (text, problem) => {
    const value = text.toLowerCase();
    if (value === 'true') return true;
    if (value === 'false') return false;
    return problem(`Input "${name}" must be true or false, got ${quote(text, 40)}.`);
  };

export const duration =
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

/** The hosts to which a key may go over plain http: this machine. */
export function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}
