import * as z from 'zod/mini';
import { ActionFailure } from '../service/errors.js';
import { describeThrown } from '../core/log.js';
import { quote } from '../core/untrusted.js';

/** One GitHub call, in the words a warning needs to say what failed and what would fix it. */
export interface GitHubOperation {
  /** What was tried, after "Could not": "post the comment on acme/app#12". */
  what: string;
  /** The input whose token made the call: `githubToken` or `docsToken`. */
  token: 'githubToken' | 'docsToken';
  /** The permission that call needs, as a workflow's `permissions:` block writes it. */
  permission: string;
  /** `owner/repo` the call went to. */
  repo: string;
  /** A pull request from a fork: the workflow's token is read-only there. */
  fork?: boolean;
  /** What usually makes GitHub refuse it (422), as a sentence. */
  refused?: string;
  /**
   * The fault ends the step (a thread's memory or docs pull request that cannot be read): the
   * words must not say that the job's result is not affected; the caller says what follows.
   */
  fails?: boolean;
}

interface OctokitFailure {
  name?: string;
  status?: number;
  message?: string;
  response?: { data?: unknown; headers?: Record<string, string | number | undefined> };
}

/**
 * The one warning for a failed GitHub call. GitHub's own message is quoted (it may be echoed
 * text), and the sentence ends with what would fix it: GitHub faults never fail the step, so the
 * warning is the only place a workflow author learns what to change.
 */
export function describeGitHubFault(error: unknown, op: GitHubOperation): string {
  if (isIdentityFault(error)) {
    // Said as what it is: the fault is the identity query's, whatever call needed the login.
    const what = `learn which login githubToken acts as (the GraphQL viewer query, which tells the action's own comments and statuses from others') to ${op.what}`;
    const failure = error as OctokitFailure;
    // The query names no repository, so a 404 is not about one: GraphQL is not where it was asked.
    if (failure.response && failure.status === 404) {
      const said = gitHubMessage(failure.response.data);
      return `Could not ${what} (404${said ? ` ${quote(said, 200)}` : ''}): GitHub has no GraphQL API where the action asked, which is GITHUB_API_URL's /graphql (/api/graphql on GitHub Enterprise Server). Check GITHUB_API_URL, and any proxy between the runner and GitHub.`;
    }
    return describeFault(error, { ...op, what, token: 'githubToken' });
  }
  return describeFault(error, op);
}

/** Faults of the identity query (GraphQL `viewer { login }`), marked where it is asked. */
const identityFaults = new WeakSet<object>();

/** Marks `error` as the identity query's fault, for describeGitHubFault to name; returns it. */
export function identityFault(error: unknown): unknown {
  if (error !== null && typeof error === 'object') identityFaults.add(error);
  return error;
}

function isIdentityFault(error: unknown): boolean {
  return error !== null && typeof error === 'object' && identityFaults.has(error);
}

function describeFault(error: unknown, op: GitHubOperation): string {
  const failure = (error ?? {}) as OctokitFailure;
  const status = failure.response ? failure.status : undefined;
  const said = gitHubMessage(failure.response?.data);
  const quoted = said ? ` ${quote(said, 200)}` : '';
  const start = `Could not ${op.what}`;
  const unaffected = op.fails ? '' : "; the job's result is not affected";
  if (error instanceof z.core.$ZodError) {
    return `${start}: GitHub's reply did not have the shape the action expects (is GITHUB_API_URL a GitHub API?).`;
  }
  if (failure.name === 'GraphqlResponseError') {
    return `${start}: GitHub's GraphQL API refused the query (${quote(failure.message ?? '', 200)}).`;
  }
  if (status === undefined) {
    const refusedWith = proxyRefusal(error);
    if (refusedWith !== undefined) {
      const why = refusedWith === '407' ? ': it wants credentials' : '';
      return `${start}: the proxy refused the connection to GitHub (it answered ${refusedWith}${why}). Put the proxy's user and password in HTTPS_PROXY (http://user:password@host:port), or add GitHub's host to NO_PROXY${unaffected}.`;
    }
    return `${start}: GitHub did not answer (${describeThrown(error)}). Check GITHUB_API_URL and the runner's proxy settings (HTTPS_PROXY, NO_PROXY)${unaffected}.`;
  }
  const headers = failure.response?.headers ?? {};
  if ((status === 403 || status === 429) && String(headers['x-ratelimit-remaining']) === '0') {
    return `${start}: the GitHub API rate limit of ${op.token} is used up (${status}); it resets within the hour.`;
  }
  switch (status) {
    case 401:
      return `${start}: GitHub rejected ${op.token} (401${quoted}); it is missing, expired or revoked.`;
    case 403:
      if (op.fork) {
        return `${start} (403${quoted}): on a pull request from a fork, the workflow's token is read-only. Run on pull_request_target, or leave comment off for forks.`;
      }
      return `${start} (403${quoted}): ${op.token} needs ${op.permission} on ${op.repo}; grant it in the workflow's permissions block or to the token.`;
    case 404:
      return op.token === 'docsToken'
        ? `${start} (404${quoted}): ${op.repo} or the pull request is not visible to docsToken. The workflow's own token reaches only this repository: pass a token for ${op.repo} as docsToken.`
        : `${start} (404${quoted}): it is gone, or githubToken cannot see ${op.repo}.`;
    case 410:
      return `${start} (410${quoted}): issues are turned off or the issue was deleted.`;
    case 422:
      return `${start}: GitHub refused it (422${quoted}).${op.refused ? ` ${op.refused}` : ''}`;
    default:
      return op.fails
        ? `${start}: GitHub answered ${status}${quoted}.`
        : `${start}: GitHub answered ${status}${quoted}; the job's result is not affected, and a re-run tries again.`;
  }
}

/**
 * The status a proxy answered instead of opening the tunnel, when that is why no answer came.
 * Octokit wraps fetch's error, which wraps undici's ("Request was cancelled", then "Proxy response
 * (407) !== 200 when HTTP Tunneling"): only the innermost one says the proxy refused.
 */
function proxyRefusal(error: unknown): string | undefined {
  // Duck-typed: errors from other realms (Node's own fetch) are not `instanceof Error` here.
  let current = error as { message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; depth < 8 && current && typeof current === 'object'; depth++) {
    const refused = /^Proxy response \((\d{3})\)/.exec(String(current.message));
    if (refused) return refused[1];
    current = current.cause as typeof current;
  }
  return undefined;
}

/** Statuses after which trying again in the same run cannot help: the token or the thread is wrong. */
const FINAL_STATUSES = new Set([401, 403, 404, 410]);

/** A failed GitHub call, read once: what the rules that follow a fault ask of it. */
export interface GitHubFault {
  /** GitHub's HTTP status; none when GitHub did not answer (the network, a timeout, a proxy). */
  status?: number;
  /** Trying again in this run cannot help: the token or the thread is wrong (401, 403, 404, 410). */
  final: boolean;
  /** Worth one more try of a read: GitHub's 5xx, 408, or no answer at all (a timeout excepted). */
  passing: boolean;
  /**
   * 404 or 422 on a commit, a comparison or a status list: GitHub no longer has what was named
   * (a forced push), which reads as nothing there rather than as a fault.
   */
  gone: boolean;
  /** 404: a comment, a label or a pull request that is not there. */
  notFound: boolean;
  /** Marked as the identity query's (see identityFault). */
  identity: boolean;
  /** In a few words: "GitHub answered 502", or what was thrown. */
  said: string;
}

/** The one reading of a GitHub fault: every rule that depends on the status asks this. */
export function faultOf(error: unknown): GitHubFault {
  const failure = error as { status?: unknown; name?: unknown } | null | undefined;
  const status = typeof failure?.status === 'number' ? failure.status : undefined;
  // zod/mini's errors are `$ZodError`s (their name is not `ZodError`): the same test as describeFault's.
  const unreadable = error instanceof z.core.$ZodError || error instanceof ActionFailure;
  const passing =
    !unreadable &&
    (status === undefined
      ? !(failure?.name === 'AbortError' || failure?.name === 'TimeoutError')
      : status >= 500 || status === 408);
  return {
    ...(status !== undefined ? { status } : {}),
    final: status !== undefined && FINAL_STATUSES.has(status),
    passing,
    gone: status === 404 || status === 422,
    notFound: status === 404,
    identity: isIdentityFault(error),
    said: status !== undefined ? `GitHub answered ${status}` : describeThrown(error),
  };
}

function gitHubMessage(data: unknown): string | undefined {
  if (data && typeof data === 'object' && 'message' in data && typeof data.message === 'string') {
    const errors = 'errors' in data && Array.isArray(data.errors) ? data.errors : [];
    const details = errors
      .map((e: unknown) =>
        e && typeof e === 'object' && 'message' in e && typeof e.message === 'string' ? e.message : undefined,
      )
      .filter(Boolean);
    return details.length ? `${data.message}: ${details.join('; ')}` : data.message;
  }
  return typeof data === 'string' && data ? data : undefined;
}
