import { redact } from './secrets.js';
import { isPlainHttpUrl } from './untrusted.js';

/** A pull request as its page's URL names it. */
export interface PullRequestRef {
  owner: string;
  repo: string;
  number: number;
}

/** github.com: where the docs repositories of Enterprise Server users often live. */
export const GITHUB_COM = { serverUrl: 'https://github.com', apiUrl: 'https://api.github.com' };

/**
 * The link the `prLink` output carries: the service's, redacted, when it is a plain http(s) URL
 * (printable ASCII, no spaces); else `''`. Whatever acts on the docs pull request acts on this
 * link only, so nothing is written about a link the action refused to hand on.
 */
export function outputLink(link: string | null | undefined): string {
  if (!link) return '';
  const clean = redact(link);
  return isPlainHttpUrl(clean) ? clean : '';
}

/**
 * The pull request a `prLink` names, when it is a pull request page on `serverUrl` (the run's
 * GitHub, path prefix included) — or, with `githubCom`, on github.com, where docs repositories of
 * Enterprise Server users often live. A token is never sent about a link elsewhere.
 */
export function pullRequestOf(
  prLink: string,
  serverUrl: string,
  options: { githubCom?: boolean } = {},
): PullRequestRef | undefined {
  const servers = [serverUrl, ...(options.githubCom ? [GITHUB_COM.serverUrl] : [])];
  for (const server of servers) {
    const found = onServer(prLink, server);
    if (found) return found;
  }
  return undefined;
}

/**
 * The docs pull request the `prLink` output carries, and which GitHub it is on: the run's own
 * (`home`), or `other` (github.com, as `otherServer` names it, from a run on another GitHub).
 * `undefined` for a link that is not a pull request on either.
 */
export function docsPullRequest(
  prLink: string | null | undefined,
  serverUrl: string,
  otherServer: string = GITHUB_COM.serverUrl,
): { pr: PullRequestRef; home: boolean } | undefined {
  const link = outputLink(prLink);
  if (!link) return undefined;
  const home = onServer(link, serverUrl);
  if (home) return { pr: home, home: true };
  if (sameServer(serverUrl, otherServer)) return undefined;
  const other = onServer(link, otherServer);
  return other ? { pr: other, home: false } : undefined;
}

/**
 * A docs pull request's page, as a dispatch names it (DOCS_ASK_INPUT) and a record keeps it:
 * http(s) (a GitHub is reached as its server URL says), printable, an owner and repository as
 * GitHub spells them, and a number. Whether it is on a GitHub the action may reach is the GitHub
 * side's to say.
 */
export function isDocsPullPage(link: string): boolean {
  return (
    link.length <= 500 &&
    /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?(?:\/[\x21-\x7e]*)?\/[A-Za-z0-9_-]{1,39}\/[A-Za-z0-9._-]{1,100}\/pull\/[1-9][0-9]{0,9}$/.test(
      link,
    )
  );
}

/** A pull request's page on the GitHub at `serverUrl`. */
export function pullPage(serverUrl: string, pr: PullRequestRef): string {
  return `${serverUrl}/${pr.owner}/${pr.repo}/pull/${pr.number}`;
}

/** `owner/repo#number`, lower case: how a thread's record names its docs pull request. */
export function pullKey(pr: PullRequestRef): string {
  return `${pr.owner}/${pr.repo}#${pr.number}`.toLowerCase();
}

/** Whether two pull requests are one: the same repository (GitHub's names ignore case) and number. */
export function samePullRequest(a: PullRequestRef, b: PullRequestRef): boolean {
  return (
    a.number === b.number &&
    a.owner.toLowerCase() === b.owner.toLowerCase() &&
    a.repo.toLowerCase() === b.repo.toLowerCase()
  );
}

function sameServer(a: string, b: string): boolean {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    return x.origin === y.origin && x.pathname.replace(/\/+$/, '') === y.pathname.replace(/\/+$/, '');
  } catch {
    return false;
  }
}

function onServer(prLink: string, serverUrl: string): PullRequestRef | undefined {
  let link: URL;
  let server: URL;
  try {
    link = new URL(prLink);
    server = new URL(serverUrl);
  } catch {
    return undefined;
  }
  if (link.protocol !== server.protocol || link.host !== server.host) return undefined;
  const prefix = server.pathname.replace(/\/+$/, '');
  if (!link.pathname.startsWith(`${prefix}/`)) return undefined;
  const match = /^\/([\w-]+)\/([\w.-]+)\/pull\/(\d{1,10})\/?$/.exec(link.pathname.slice(prefix.length));
  if (!match) return undefined;
  const [, owner = '', repo = '', number = ''] = match;
  return { owner, repo, number: Number(number) };
}

/**
 * The label a thread's run puts on its docs pull request when that opens in the run's own
 * repository (a monorepo), where the workflow runs on the docs PR's own events too: a pull request
 * carrying it starts no job, whoever opened it.
 */
export const DOCS_PR_LABEL = 'docs-agent-pr';

/** Whether label names (as GitHub gives them) hold DOCS_PR_LABEL: GitHub's names ignore case. */
export function carriesDocsLabel(names: readonly unknown[]): boolean {
  return names.some((name) => typeof name === 'string' && name.toLowerCase() === DOCS_PR_LABEL);
}

/**
 * The label a thread carries while its job works and may still open a docs pull request in the
 * run's own repository: a run on a pull request opened there in the meantime reads these threads'
 * jobs to tell whether it is one's docs PR, before the report labels it DOCS_PR_LABEL.
 */
export const WORKING_LABEL = 'docs-agent-working';

/** Whether a link the service sent (a job's `prLink`) is the page `page`: a trailing slash and case aside. */
export function samePage(link: string | null | undefined, page: string): boolean {
  return Boolean(link) && (link ?? '').replace(/\/+$/, '').toLowerCase() === page.toLowerCase();
}
