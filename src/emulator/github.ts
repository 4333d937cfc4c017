// A loopback stand-in for GitHub's REST API (and the one GraphQL query the action makes), for the
// calls the action's GitHub side uses: repositories with issues and pull requests, comments,
// labels, review requests, and tokens that each reach some repositories, some with write access.
// Every request and every reply is checked against GitHub's published OpenAPI description.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChangedFile } from '../github/context.js';
import { gitHubContract, type GitHubSpec } from './github-openapi.js';

export type GitHubRoute =
  | 'graphql'
  | 'pullsOfCommit'
  | 'listComments'
  | 'createComment'
  | 'updateComment'
  | 'addLabels'
  | 'requestReviewers'
  | 'compare'
  | 'getCommit'
  | 'listPullFiles';

const ROUTES: { route: Exclude<GitHubRoute, 'graphql'>; method: string; template: string; write: boolean }[] =
  [
    {
      route: 'pullsOfCommit',
      method: 'GET',
      template: '/repos/{owner}/{repo}/commits/{commit_sha}/pulls',
      write: false,
    },
    {
      route: 'listComments',
      method: 'GET',
      template: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
      write: false,
    },
    {
      route: 'createComment',
      method: 'POST',
      template: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
      write: true,
    },
    {
      route: 'updateComment',
      method: 'PATCH',
      template: '/repos/{owner}/{repo}/issues/comments/{comment_id}',
      write: true,
    },
    {
      route: 'addLabels',
      method: 'POST',
      template: '/repos/{owner}/{repo}/issues/{issue_number}/labels',
      write: true,
    },
    { route: 'compare', method: 'GET', template: '/repos/{owner}/{repo}/compare/{basehead}', write: false },
    { route: 'getCommit', method: 'GET', template: '/repos/{owner}/{repo}/commits/{ref}', write: false },
    {
      route: 'listPullFiles',
      method: 'GET',
      template: '/repos/{owner}/{repo}/pulls/{pull_number}/files',
      write: false,
    },
    {
      route: 'requestReviewers',
      method: 'POST',
      template: '/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers',
      write: true,
    },
  ];

export interface GitHubEmulatorOptions {
  /** `''`: the API at the root, as api.github.com and GHE.com; `/api/v3`: GitHub Enterprise Server. */
  prefix?: '' | '/api/v3';
  /** The description requests and replies are checked against (GHES's for `/api/v3` by default). */
  spec?: GitHubSpec;
  host?: string;
  /** The host name its URLs carry, when clients reach it by a name (through a proxy) rather than `host`. */
  hostname?: string;
  tls?: { key: string | Buffer; cert: string | Buffer };
}

export interface TokenGrant {
  login: string;
  type?: 'User' | 'Bot';
  /** Repositories (`owner/repo`) the token can see; `*` for all. */
  read?: string[] | '*';
  /** Repositories it may write to (comments, labels, review requests). */
  write?: string[];
}

export interface StoredComment {
  id: number;
  body: string;
  login: string;
  createdAt: string;
  updatedAt: string;
}

/** A changed file as GitHub's diff entries describe it (the fields the action reads). */
export type StoredFile = ChangedFile;

export interface StoredCommit {
  sha: string;
  message: string;
  files: StoredFile[];
}

export interface StoredThread {
  number: number;
  pull: boolean;
  /** A pull request's changed files. */
  files: StoredFile[];
  mergeCommitSha?: string;
  comments: StoredComment[];
  labels: string[];
  reviewers: string[];
  teams: string[];
}

export interface GitHubRequest {
  route: GitHubRoute | 'unknown';
  method: string;
  path: string;
  /** The token it carried, if any. */
  token?: string;
  json?: unknown;
  at: number;
}

export interface GitHubFault {
  status: number;
  message?: string;
  headers?: Record<string, string>;
  /** Close the connection without an answer. */
  drop?: boolean;
}

export interface GitHubEmulator {
  /** The API base URL, as GITHUB_API_URL names it. */
  apiUrl: string;
  /** The web host, as GITHUB_SERVER_URL names it. */
  serverUrl: string;
  port: number;
  requests: GitHubRequest[];
  violations: string[];
  grant(token: string, grant: TokenGrant): void;
  /** A pull request (or an issue, `pull: false`) in `repo`; commits it contains lead to it. */
  thread(
    repo: string,
    options?: { pull?: boolean; mergeCommitSha?: string; commits?: string[]; files?: StoredFile[] },
  ): StoredThread;
  addComment(repo: string, number: number, comment: { login: string; body: string }): StoredComment;
  get(repo: string, number: number): StoredThread;
  /** The next request of `route` gets this answer instead. */
  fail(route: GitHubRoute, ...faults: GitHubFault[]): void;
  /** A commit GitHub knows, with the files it changed. */
  commit(repo: string, commit: StoredCommit): void;
  /** What `GET …/compare/{base}...{head}` answers: the commits (known by `commit`) and the files. */
  comparison(repo: string, basehead: string, comparison: { commits: string[]; files: StoredFile[] }): void;
  /** The next request of `route` is answered (as usual) only after `ms`. */
  delay(route: GitHubRoute, ms: number): void;
  count(route: GitHubRoute): number;
  close(): Promise<void>;
}

interface Repo {
  id: number;
  threads: Map<number, StoredThread>;
  commits: Map<string, number[]>;
  known: Map<string, StoredCommit>;
  comparisons: Map<string, { commits: string[]; files: StoredFile[] }>;
}

export async function startGitHubEmulator(options: GitHubEmulatorOptions = {}): Promise<GitHubEmulator> {
  const prefix = options.prefix ?? '';
  const contract = gitHubContract(options.spec ?? (prefix === '/api/v3' ? 'ghes-3.19' : 'api.github.com'));
  const graphqlPath = prefix === '/api/v3' ? '/api/graphql' : '/graphql';
  const requests: GitHubRequest[] = [];
  const violations: string[] = [];
  const grants = new Map<string, Required<TokenGrant> & { id: number }>();
  const repos = new Map<string, Repo>();
  const faults = new Map<GitHubRoute, GitHubFault[]>();
  const delays = new Map<GitHubRoute, number[]>();
  const closing = new AbortController();
  let nextId = 1000;
  let serverUrl = '';

  const repoOf = (name: string): Repo => {
    let repo = repos.get(name.toLowerCase());
    if (!repo) {
      repo = {
        id: nextId++,
        threads: new Map(),
        commits: new Map(),
        known: new Map(),
        comparisons: new Map(),
      };
      repos.set(name.toLowerCase(), repo);
    }
    return repo;
  };

  const user = (login: string) => {
    const known = [...grants.values()].find((g) => g.login === login);
    return {
      ...contract.example('simple-user'),
      login,
      id: known?.id ?? 1,
      node_id: `U_${login}`,
      type: known?.type ?? 'User',
      html_url: `${serverUrl}/${login}`,
      url: `${serverUrl}${prefix}/users/${login}`,
    };
  };

  const commentJson = (repoName: string, thread: StoredThread, c: StoredComment) => ({
    ...contract.example('issue-comment'),
    id: c.id,
    node_id: `IC_${c.id}`,
    body: c.body,
    user: user(c.login),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    html_url: `${serverUrl}/${repoName}/${thread.pull ? 'pull' : 'issues'}/${thread.number}#issuecomment-${c.id}`,
    issue_url: `${serverUrl}${prefix}/repos/${repoName}/issues/${thread.number}`,
    url: `${serverUrl}${prefix}/repos/${repoName}/issues/comments/${c.id}`,
    author_association: 'MEMBER',
    performed_via_github_app: null,
  });

  const pullJson = (repoName: string, thread: StoredThread) => {
    const pr = contract.example('pull-request-simple');
    return {
      ...pr,
      number: thread.number,
      id: thread.number + 5000,
      html_url: `${serverUrl}/${repoName}/pull/${thread.number}`,
      url: `${serverUrl}${prefix}/repos/${repoName}/pulls/${thread.number}`,
      merge_commit_sha: thread.mergeCommitSha ?? null,
      requested_reviewers: thread.reviewers.map(user),
      // The published example's teams lack a field its own schema requires.
      requested_teams: [],
      labels: [],
    };
  };

  const fileJson = (repoName: string, f: StoredFile) => ({
    ...contract.example('diff-entry'),
    sha: '1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f',
    filename: f.filename,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    changes: f.additions + f.deletions,
    blob_url: `${serverUrl}/${repoName}/blob/main/${f.filename}`,
    raw_url: `${serverUrl}/${repoName}/raw/main/${f.filename}`,
    contents_url: `${serverUrl}${prefix}/repos/${repoName}/contents/${f.filename}`,
    patch: f.patch,
    previous_filename: f.previous_filename,
  });

  const commitJson = (repoName: string, c: StoredCommit, withFiles: boolean) => {
    const example = contract.example('commit');
    const json: Record<string, unknown> = {
      ...example,
      sha: c.sha,
      node_id: `C_${c.sha}`,
      url: `${serverUrl}${prefix}/repos/${repoName}/commits/${c.sha}`,
      html_url: `${serverUrl}/${repoName}/commit/${c.sha}`,
      commit: { ...(example.commit as object), message: c.message },
    };
    if (withFiles) json.files = c.files.map((f) => fileJson(repoName, f));
    else delete json.files;
    return json;
  };

  const labelJson = (name: string, i: number) => ({
    ...contract.example('label'),
    id: 200 + i,
    node_id: `LA_${i}`,
    name,
    url: `${serverUrl}${prefix}/labels/${encodeURIComponent(name)}`,
  });

  function answer(route: GitHubRoute | undefined, req: Exchange): Reply {
    const token = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const grant = token ? grants.get(token) : undefined;
    if (!grant) return error(401, 'Bad credentials');
    if (route === 'graphql') {
      const query = (req.json as { query?: unknown } | undefined)?.query;
      if (typeof query !== 'string' || !/^\s*query\s*\{\s*viewer\s*\{\s*login\s*\}\s*\}\s*$/.test(query)) {
        violations.push(`graphql: unexpected query ${JSON.stringify(query)}`);
        return { status: 200, json: { errors: [{ message: 'unexpected query' }] } };
      }
      return { status: 200, json: { data: { viewer: { login: grant.login } } } };
    }
    const spec = ROUTES.find((r) => r.route === route);
    const params = req.params;
    const repoName = `${params.owner}/${params.repo}`;
    const canRead = grant.read === '*' || grant.read.some((r) => r.toLowerCase() === repoName.toLowerCase());
    const canWrite = grant.write.some((r) => r.toLowerCase() === repoName.toLowerCase());
    const repo = repos.get(repoName.toLowerCase());
    if (!spec || !repo || !canRead) return error(404, 'Not Found');
    if (spec.write && !canWrite) return error(403, 'Resource not accessible by integration');
    const body = (req.json ?? {}) as Record<string, unknown>;
    const now = new Date().toISOString();

    switch (spec.route) {
      case 'pullsOfCommit': {
        const numbers = repo.commits.get(params.commit_sha ?? '') ?? [];
        return {
          status: 200,
          json: numbers.map((n) => pullJson(repoName, repo.threads.get(n) as StoredThread)),
        };
      }
      case 'listComments':
      case 'createComment': {
        const thread = repo.threads.get(Number(params.issue_number));
        if (!thread) return error(404, 'Not Found');
        if (spec.route === 'createComment') {
          const c = store(thread, {
            login: grant.login,
            body: typeof body.body === 'string' ? body.body : '',
          });
          return { status: 201, json: commentJson(repoName, thread, c) };
        }
        const perPage = Number(req.query.get('per_page') ?? 30);
        const page = Number(req.query.get('page') ?? 1);
        const slice = thread.comments.slice((page - 1) * perPage, page * perPage);
        const last = Math.max(1, Math.ceil(thread.comments.length / perPage));
        const link = (p: number, rel: string) =>
          `<${serverUrl}${prefix}/repos/${repoName}/issues/${thread.number}/comments?per_page=${perPage}&page=${p}>; rel="${rel}"`;
        const links = [page < last && link(page + 1, 'next'), page < last && link(last, 'last')].filter(
          Boolean,
        );
        return {
          status: 200,
          json: slice.map((c) => commentJson(repoName, thread, c)),
          headers: links.length ? { link: links.join(', ') } : {},
        };
      }
      case 'updateComment': {
        // As on GitHub, anyone with write access may edit any comment: that the action edits
        // only its own is the action's rule, which the tests check.
        for (const thread of repo.threads.values()) {
          const c = thread.comments.find((x) => x.id === Number(params.comment_id));
          if (c) {
            c.body = typeof body.body === 'string' ? body.body : '';
            c.updatedAt = now;
            return { status: 200, json: commentJson(repoName, thread, c) };
          }
        }
        return error(404, 'Not Found');
      }
      case 'addLabels': {
        const thread = repo.threads.get(Number(params.issue_number));
        if (!thread) return error(404, 'Not Found');
        for (const name of (body.labels as string[] | undefined) ?? []) {
          if (!thread.labels.includes(name)) thread.labels.push(name);
        }
        return { status: 200, json: thread.labels.map(labelJson) };
      }
      case 'compare': {
        const comparison = repo.comparisons.get(params.basehead ?? '');
        if (!comparison) return error(404, 'Not Found');
        const commits = comparison.commits.map((sha) => repo.known.get(sha)).filter((c) => c !== undefined);
        const [base = '', head = ''] = (params.basehead ?? '').split('...');
        return {
          status: 200,
          json: {
            ...contract.example('commit-comparison'),
            url: `${serverUrl}${prefix}/repos/${repoName}/compare/${params.basehead}`,
            html_url: `${serverUrl}/${repoName}/compare/${base}...${head}`,
            status: 'ahead',
            ahead_by: commits.length,
            behind_by: 0,
            total_commits: commits.length,
            commits: commits.map((c) => commitJson(repoName, c, false)),
            files: comparison.files.map((f) => fileJson(repoName, f)),
          },
        };
      }
      case 'getCommit': {
        const commit = repo.known.get(params.ref ?? '');
        if (!commit) return error(404, 'Not Found');
        return { status: 200, json: commitJson(repoName, commit, true) };
      }
      case 'listPullFiles': {
        const thread = repo.threads.get(Number(params.pull_number));
        if (!thread?.pull) return error(404, 'Not Found');
        const perPage = Number(req.query.get('per_page') ?? 30);
        const page = Number(req.query.get('page') ?? 1);
        const slice = thread.files.slice((page - 1) * perPage, page * perPage);
        return { status: 200, json: slice.map((f) => fileJson(repoName, f)) };
      }
      case 'requestReviewers': {
        const thread = repo.threads.get(Number(params.pull_number));
        if (!thread?.pull) return error(404, 'Not Found');
        thread.reviewers.push(...((body.reviewers as string[] | undefined) ?? []));
        thread.teams.push(...((body.team_reviewers as string[] | undefined) ?? []));
        return { status: 201, json: pullJson(repoName, thread) };
      }
    }
  }

  function store(thread: StoredThread, c: { login: string; body: string }): StoredComment {
    const now = new Date().toISOString();
    const comment = { id: nextId++, body: c.body, login: c.login, createdAt: now, updatedAt: now };
    thread.comments.push(comment);
    return comment;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = req.method ?? 'GET';
    const json = body ? parse(body) : undefined;
    const token = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    let route: GitHubRoute | undefined;
    let template: string | undefined;
    let params: Record<string, string> = {};
    if (method === 'POST' && url.pathname === graphqlPath) route = 'graphql';
    else if (url.pathname.startsWith(`${prefix}/`)) {
      const path = url.pathname.slice(prefix.length);
      for (const r of ROUTES) {
        const matched = match(r.template, path);
        if (matched && r.method === method) {
          route = r.route;
          template = r.template;
          params = matched;
          break;
        }
      }
    }
    requests.push({
      route: route ?? 'unknown',
      method,
      path: req.url ?? '/',
      token,
      json,
      at: Date.now(),
    });
    if (!route) violations.push(`unexpected request ${method} ${req.url}`);
    if (template) violations.push(...contract.checkRequest(method, template, url.searchParams, json));

    const wait = route ? delays.get(route)?.shift() : undefined;
    if (wait) {
      try {
        await sleep(wait, undefined, { signal: closing.signal });
      } catch {
        // Closed while the reply was held back: a pending timer would keep the process alive.
        res.destroy();
        return;
      }
    }
    const fault = route ? faults.get(route)?.shift() : undefined;
    if (fault?.drop) {
      res.destroy();
      return;
    }
    const reply: Reply = fault
      ? {
          ...error(fault.status, fault.message ?? http.STATUS_CODES[fault.status] ?? 'Error'),
          headers: fault.headers,
        }
      : route
        ? answer(route, { headers: req.headers, json, params, query: url.searchParams })
        : error(404, 'Not Found');
    // Scripted faults too: a reply the real API could not send would prove nothing.
    if (template) violations.push(...contract.checkResponse(method, template, reply.status, reply.json));
    const text = JSON.stringify(reply.json);
    res.writeHead(reply.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'x-github-api-version-selected': '2022-11-28',
      ...reply.headers,
    });
    res.end(text);
  }

  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      violations.push(`GitHub emulator failed on ${req.method} ${req.url}: ${String(err)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Emulator error' }));
    });
  };
  const server = options.tls ? https.createServer({ ...options.tls }, listener) : http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  serverUrl = `${options.tls ? 'https' : 'http'}://${options.hostname ?? options.host ?? '127.0.0.1'}:${port}`;

  let closed: Promise<void> | undefined;
  return {
    apiUrl: `${serverUrl}${prefix}`,
    get serverUrl() {
      return serverUrl;
    },
    port,
    requests,
    violations,
    grant(token, grant) {
      grants.set(token, { type: 'User', read: [], write: [], ...grant, id: nextId++ });
    },
    thread(repoName, threadOptions = {}) {
      const repo = repoOf(repoName);
      const thread: StoredThread = {
        number: repo.threads.size + 1,
        pull: threadOptions.pull ?? true,
        files: threadOptions.files ?? [],
        mergeCommitSha: threadOptions.mergeCommitSha,
        comments: [],
        labels: [],
        reviewers: [],
        teams: [],
      };
      repo.threads.set(thread.number, thread);
      const commits = [
        ...(threadOptions.commits ?? []),
        ...(threadOptions.mergeCommitSha ? [threadOptions.mergeCommitSha] : []),
      ];
      for (const sha of commits) repo.commits.set(sha, [...(repo.commits.get(sha) ?? []), thread.number]);
      return thread;
    },
    commit(repoName, commit) {
      repoOf(repoName).known.set(commit.sha, commit);
    },
    comparison(repoName, basehead, comparison) {
      repoOf(repoName).comparisons.set(basehead, comparison);
    },
    addComment(repoName, number, comment) {
      const thread = repoOf(repoName).threads.get(number);
      if (!thread) throw new Error(`no thread ${repoName}#${number}`);
      return store(thread, comment);
    },
    get(repoName, number) {
      const thread = repoOf(repoName).threads.get(number);
      if (!thread) throw new Error(`no thread ${repoName}#${number}`);
      return thread;
    },
    fail: (route, ...list) => void faults.set(route, [...(faults.get(route) ?? []), ...list]),
    delay: (route, ms) => void delays.set(route, [...(delays.get(route) ?? []), ms]),
    count: (route) => requests.filter((r) => r.route === route).length,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

interface Exchange {
  headers: http.IncomingHttpHeaders;
  json: unknown;
  params: Record<string, string>;
  query: URLSearchParams;
}

interface Reply {
  status: number;
  json?: unknown;
  headers?: Record<string, string>;
}

function error(status: number, message: string): Reply {
  return {
    status,
    json: { message, documentation_url: 'https://docs.github.com/rest', status: String(status) },
  };
}

function match(template: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const found = new RegExp(`^${pattern}$`).exec(path);
  if (!found) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1] ?? '')]));
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
