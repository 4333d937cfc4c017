/** A pull request as its page's URL names it. */
export interface PullRequestRef {
  owner: string;
  repo: string;
  number: number;
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
  const servers = [serverUrl, ...(options.githubCom ? ['https://github.com'] : [])];
  for (const server of servers) {
    const found = onServer(prLink, server);
    if (found) return found;
  }
  return undefined;
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
