// The GitHub emulator's contract checks must be able to fail: requests and replies that GitHub's
// published description does not allow are recorded as violations.
import { afterEach, describe, expect, it } from '@jest/globals';
import { startGitHubEmulator, type GitHubEmulator } from '../emulators/github.js';
import { FORMATS, gitHubContract } from '../emulators/github-openapi.js';
import ghes from '../emulators/openapi/github/ghes-3.19.json' with { type: 'json' };
import githubCom from '../emulators/openapi/github/api.github.com.json' with { type: 'json' };

let gh: GitHubEmulator | undefined;
afterEach(async () => {
  await gh?.close();
  gh = undefined;
});

async function world(prefix: '' | '/api/v3' = '') {
  gh = await startGitHubEmulator({ prefix });
  gh.grant('ghs_ok', { login: 'bot', read: ['acme/app'], write: ['acme/app'] });
  gh.thread('acme/app');
  return gh;
}

const call = (g: GitHubEmulator, method: string, path: string, body?: unknown, token = 'ghs_ok') =>
  fetch(`${g.apiUrl}${path}`, {
    method,
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('GitHub emulator contract', () => {
  it.each(['', '/api/v3'] as const)('accepts what the description allows (prefix %j)', async (prefix) => {
    const g = await world(prefix);
    const created = await call(g, 'POST', '/repos/acme/app/issues/1/comments', { body: 'hi' });
    expect(created.status).toBe(201);
    const comment = (await created.json()) as { id: number; user: { login: string } };
    expect(comment.user.login).toBe('bot');
    expect((await call(g, 'GET', '/repos/acme/app/issues/1/comments?per_page=100&page=1')).status).toBe(200);
    expect(
      (await call(g, 'PATCH', `/repos/acme/app/issues/comments/${comment.id}`, { body: 'x' })).status,
    ).toBe(200);
    expect(g.violations).toEqual([]);
  });

  it('records a query parameter the operation does not declare, or of the wrong type', async () => {
    const g = await world();
    await call(g, 'GET', '/repos/acme/app/issues/1/comments?per_page=100&sort=desc');
    await call(g, 'GET', '/repos/acme/app/issues/1/comments?per_page=many');
    expect(g.violations).toEqual([
      'GET /repos/{owner}/{repo}/issues/{issue_number}/comments: query parameter sort is not declared',
      expect.stringContaining('GET /repos/{owner}/{repo}/issues/{issue_number}/comments query per_page'),
    ]);
  });

  it('records a body the operation does not accept', async () => {
    const g = await world();
    await call(g, 'POST', '/repos/acme/app/issues/1/comments', { text: 'no body field' });
    await call(g, 'POST', '/repos/acme/app/issues/1/labels', { labels: 'not-a-list' });
    expect(g.violations[0]).toBe(
      "POST /repos/{owner}/{repo}/issues/{issue_number}/comments body must have required property 'body'",
    );
    expect(g.violations.slice(1).join('\n')).toContain(
      'POST /repos/{owner}/{repo}/issues/{issue_number}/labels body',
    );
  });

  it('records a route the action has no business calling', async () => {
    const g = await world();
    await call(g, 'DELETE', '/repos/acme/app/issues/comments/1');
    expect(g.violations).toEqual(['unexpected request DELETE /repos/acme/app/issues/comments/1']);
  });

  it('answers as GitHub does for tokens: 401 unknown, 404 unseen, 403 read-only', async () => {
    const g = await world();
    g.grant('ghs_read', { login: 'reader', read: ['acme/app'] });
    g.grant('ghs_other', { login: 'other', read: ['acme/docs'], write: ['acme/docs'] });
    const path = '/repos/acme/app/issues/1/comments';
    expect((await call(g, 'POST', path, { body: 'x' }, 'ghs_nope')).status).toBe(401);
    expect((await call(g, 'POST', path, { body: 'x' }, 'ghs_other')).status).toBe(404);
    const readOnly = await call(g, 'POST', path, { body: 'x' }, 'ghs_read');
    expect(readOnly.status).toBe(403);
    expect(await readOnly.json()).toMatchObject({ message: 'Resource not accessible by integration' });
    expect(g.violations).toEqual([]);
  });
});

describe('GitHub emulator: pull requests, reactions, permissions and statuses', () => {
  const SHA = 'a'.repeat(40);

  it.each(['', '/api/v3'] as const)('answers each as the description allows (prefix %j)', async (prefix) => {
    const g = await world(prefix);
    const pr = g.thread('acme/app', { headSha: SHA, headRef: 'feature' });
    const comment = g.addComment('acme/app', pr.number, { login: 'alice', body: 'hello' });
    const review = g.addReviewComment('acme/app', pr.number, { login: 'alice', body: 'nit' });
    g.collaborator('acme/app', 'alice', 'maintain');
    const got = await call(g, 'GET', `/repos/acme/app/pulls/${pr.number}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({
      number: pr.number,
      state: 'open',
      merged: false,
      merged_at: null,
      html_url: `${g.serverUrl}/acme/app/pull/${pr.number}`,
      head: { sha: SHA, ref: 'feature', repo: { full_name: 'acme/app' } },
      base: { repo: { full_name: 'acme/app' } },
    });
    const issueReaction = `/repos/acme/app/issues/comments/${comment.id}/reactions`;
    expect((await call(g, 'POST', issueReaction, { content: 'eyes' })).status).toBe(201);
    const reviewReaction = `/repos/acme/app/pulls/comments/${review.id}/reactions`;
    expect((await call(g, 'POST', reviewReaction, { content: '+1' })).status).toBe(201);
    const permission = await call(g, 'GET', '/repos/acme/app/collaborators/alice/permission');
    expect(await permission.json()).toMatchObject({ permission: 'write', role_name: 'maintain' });
    const status = {
      state: 'pending',
      target_url: 'https://ci.example.com/1',
      description: 'x',
      context: 'ci',
    };
    expect((await call(g, 'POST', `/repos/acme/app/statuses/${SHA}`, status)).status).toBe(201);
    const listed = await call(g, 'GET', `/repos/acme/app/commits/${SHA}/statuses?per_page=10&page=1`);
    expect(await listed.json()).toMatchObject([
      { state: 'pending', context: 'ci', creator: { login: 'bot' } },
    ]);
    expect(g.violations).toEqual([]);
  });

  it('tells a pull request as it is now: closed, merged, from a fork; an issue is no pull request', async () => {
    const g = await world();
    const fork = g.thread('acme/app', { headRepo: 'alice/app', headRef: 'fix', commits: ['c1', SHA] });
    const get = async (n: number) => {
      const res = await call(g, 'GET', `/repos/acme/app/pulls/${n}`);
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    expect((await get(fork.number)).json).toMatchObject({
      head: { sha: SHA, ref: 'fix', label: 'alice:fix', repo: { full_name: 'alice/app', fork: true } },
      base: { repo: { full_name: 'acme/app', fork: false } },
    });
    fork.state = 'closed';
    const closed = (await get(fork.number)).json;
    expect(closed).toMatchObject({ state: 'closed', merged: false, merged_at: null });
    expect(closed.closed_at).toEqual(expect.any(String));
    fork.merged = true;
    const merged = (await get(fork.number)).json;
    expect(merged).toMatchObject({ state: 'closed', merged: true, merged_at: closed.closed_at });
    // Lists of pull requests tell the same.
    const ofCommit = await call(g, 'GET', `/repos/acme/app/commits/${SHA}/pulls`);
    expect(await ofCommit.json()).toMatchObject([
      { number: fork.number, state: 'closed', merged_at: closed.closed_at, head: { sha: SHA } },
    ]);
    const issue = g.thread('acme/app', { pull: false });
    expect((await get(issue.number)).status).toBe(404);
    expect((await get(99)).status).toBe(404);
    expect(g.count('getPull')).toBe(5);
    expect(g.violations).toEqual([]);
  });

  it('records reactions on the comment they are for, once a user and content', async () => {
    const g = await world();
    g.grant('ghs_alice', { login: 'alice', read: ['acme/app'], write: ['acme/app'] });
    const comment = g.addComment('acme/app', 1, { login: 'carol', body: 'an issue comment' });
    const review = g.addReviewComment('acme/app', 1, { login: 'carol', body: 'a review comment' });
    const onIssue = `/repos/acme/app/issues/comments/${comment.id}/reactions`;
    const onReview = `/repos/acme/app/pulls/comments/${review.id}/reactions`;
    const first = await call(g, 'POST', onIssue, { content: 'rocket' });
    expect(first.status).toBe(201);
    const again = await call(g, 'POST', onIssue, { content: 'rocket' });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: number }).id).toBe(((await first.json()) as { id: number }).id);
    expect((await call(g, 'POST', onIssue, { content: 'rocket' }, 'ghs_alice')).status).toBe(201);
    expect((await call(g, 'POST', onReview, { content: 'heart' })).status).toBe(201);
    expect(comment.reactions).toEqual(['rocket', 'rocket']);
    expect(review.reactions).toEqual(['heart']);
    // Each kind of comment is found only through its own operation.
    expect(
      (await call(g, 'POST', `/repos/acme/app/pulls/comments/${comment.id}/reactions`, { content: '+1' }))
        .status,
    ).toBe(404);
    expect(
      (await call(g, 'POST', `/repos/acme/app/issues/comments/${review.id}/reactions`, { content: '+1' }))
        .status,
    ).toBe(404);
    expect(comment.reactions).toEqual(['rocket', 'rocket']);
    expect(g.violations).toEqual([]);
  });

  it('folds roles into the legacy permission as GitHub does; a login with no role has none', async () => {
    const g = await world();
    const roles = ['admin', 'maintain', 'write', 'triage', 'read'] as const;
    for (const role of roles) g.collaborator('acme/app', `u-${role}`, role);
    const answers = [];
    for (const login of [...roles.map((r) => `u-${r}`), 'stranger']) {
      const res = await call(g, 'GET', `/repos/acme/app/collaborators/${login}/permission`);
      const json = (await res.json()) as { permission: string; role_name: string; user: { login: string } };
      answers.push([res.status, json.user.login, json.permission, json.role_name]);
    }
    expect(answers).toEqual([
      [200, 'u-admin', 'admin', 'admin'],
      [200, 'u-maintain', 'write', 'maintain'],
      [200, 'u-write', 'write', 'write'],
      [200, 'u-triage', 'read', 'triage'],
      [200, 'u-read', 'read', 'read'],
      [200, 'stranger', 'none', 'none'],
    ]);
    expect(g.violations).toEqual([]);
  });

  it('refuses a status description over 140 characters with 422, as GitHub does', async () => {
    const g = await world();
    const path = `/repos/acme/app/statuses/${SHA}`;
    expect((await call(g, 'POST', path, { state: 'success', description: 'x'.repeat(140) })).status).toBe(
      201,
    );
    const tooLong = await call(g, 'POST', path, { state: 'failure', description: 'x'.repeat(141) });
    expect(tooLong.status).toBe(422);
    expect(await tooLong.json()).toMatchObject({
      message: 'Validation Failed',
      errors: [{ resource: 'Status', field: 'description', code: 'custom' }],
    });
    expect(g.statuses('acme/app', SHA)).toEqual([
      {
        id: expect.any(Number),
        state: 'success',
        target_url: null,
        description: 'x'.repeat(140),
        context: 'default',
        creator: 'bot',
        createdAt: expect.any(String),
      },
    ]);
    expect(g.violations).toEqual([]);
  });

  it('lists statuses newest first, a page at a time, and 404 for a commit GitHub does not know', async () => {
    const g = await world();
    for (let i = 0; i < 5; i++) {
      await call(g, 'POST', `/repos/acme/app/statuses/${SHA}`, { state: 'pending', context: `ci/${i}` });
    }
    expect(g.statuses('acme/app', SHA).map((s) => s.context)).toEqual([
      'ci/4',
      'ci/3',
      'ci/2',
      'ci/1',
      'ci/0',
    ]);
    const list = `/repos/acme/app/commits/${SHA}/statuses`;
    const first = await call(g, 'GET', `${list}?per_page=2`);
    expect(((await first.json()) as { context: string }[]).map((s) => s.context)).toEqual(['ci/4', 'ci/3']);
    expect(first.headers.get('link')).toBe(
      `<${g.apiUrl}${list}?per_page=2&page=2>; rel="next", <${g.apiUrl}${list}?per_page=2&page=3>; rel="last"`,
    );
    const last = await call(g, 'GET', `${list}?per_page=2&page=3`);
    expect(((await last.json()) as { context: string }[]).map((s) => s.context)).toEqual(['ci/0']);
    expect(last.headers.get('link')).toBeNull();
    expect(await (await call(g, 'GET', `/repos/acme/app/commits/${'b'.repeat(40)}/statuses`)).json()).toEqual(
      [],
    );
    g.forget('acme/app', 'c0ffee');
    expect((await call(g, 'GET', '/repos/acme/app/commits/c0ffee/statuses')).status).toBe(404);
    const onUnknown = await call(g, 'POST', '/repos/acme/app/statuses/c0ffee', { state: 'success' });
    expect(onUnknown.status).toBe(422);
    expect(await onUnknown.json()).toMatchObject({ message: 'No commit found for SHA: c0ffee' });
    expect(g.count('listStatuses')).toBe(4);
    expect(g.violations).toEqual([]);
  });

  it('needs write access to react and to write a status; reading needs only read access', async () => {
    const g = await world();
    g.grant('ghs_read', { login: 'reader', read: ['acme/app'] });
    g.grant('ghs_other', { login: 'other', read: ['acme/docs'], write: ['acme/docs'] });
    const comment = g.addComment('acme/app', 1, { login: 'carol', body: 'hi' });
    const review = g.addReviewComment('acme/app', 1, { login: 'carol', body: 'nit' });
    for (const [path, body] of [
      [`/repos/acme/app/issues/comments/${comment.id}/reactions`, { content: '+1' }],
      [`/repos/acme/app/pulls/comments/${review.id}/reactions`, { content: '+1' }],
      [`/repos/acme/app/statuses/${SHA}`, { state: 'success' }],
    ] as const) {
      const refused = await call(g, 'POST', path, body, 'ghs_read');
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ message: 'Resource not accessible by integration' });
      expect((await call(g, 'POST', path, body, 'ghs_other')).status).toBe(404);
    }
    expect(comment.reactions).toEqual([]);
    expect(review.reactions).toEqual([]);
    expect(g.statuses('acme/app', SHA)).toEqual([]);
    for (const path of [
      '/repos/acme/app/pulls/1',
      '/repos/acme/app/collaborators/bot/permission',
      `/repos/acme/app/commits/${SHA}/statuses`,
    ]) {
      expect((await call(g, 'GET', path, undefined, 'ghs_read')).status).toBe(200);
      expect((await call(g, 'GET', path, undefined, 'ghs_other')).status).toBe(404);
    }
    expect(g.violations).toEqual([]);
  });

  it('fails and delays the new routes on demand', async () => {
    const g = await world();
    g.fail('createStatus', { status: 500 });
    g.delay('getPull', 50);
    expect((await call(g, 'POST', `/repos/acme/app/statuses/${SHA}`, { state: 'error' })).status).toBe(500);
    expect((await call(g, 'POST', `/repos/acme/app/statuses/${SHA}`, { state: 'error' })).status).toBe(201);
    const started = Date.now();
    expect((await call(g, 'GET', '/repos/acme/app/pulls/1')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(g.count('createStatus')).toBe(2);
    expect(g.violations).toEqual([]);
  });

  it('holds a request unanswered until its client gives up, and answers the next as usual', async () => {
    const g = await world();
    g.hold('getPull');
    const client = new AbortController();
    const held = fetch(`${g.apiUrl}/repos/acme/app/pulls/1`, {
      headers: { authorization: 'token ghs_ok' },
      signal: client.signal,
    });
    while (g.count('getPull') < 1) await new Promise((resolve) => setImmediate(resolve));
    client.abort();
    await expect(held).rejects.toThrow();
    expect((await call(g, 'GET', '/repos/acme/app/pulls/1')).status).toBe(200);
    expect(g.violations).toEqual([]);
  });
});

describe("GitHub emulator: a repository's commits, newest first", () => {
  // Shas as GitHub writes them: 40 hex digits.
  const sha = (n: number) => n.toString(16).padStart(40, '0');
  type Listed = { sha: string; html_url: string; commit: { message: string }; parents: { sha: string }[] };
  const list = async (g: GitHubEmulator, query = '', token = 'ghs_ok') => {
    const res = await call(g, 'GET', `/repos/acme/app/commits${query}`, undefined, token);
    return { status: res.status, link: res.headers.get('link'), json: (await res.json()) as Listed[] };
  };

  it.each(['', '/api/v3'] as const)(
    'lists a sha and its ancestors, each with its parent, as the description allows (prefix %j)',
    async (prefix) => {
      const g = await world(prefix);
      g.history('acme/app', [sha(3), sha(2), sha(1)]);
      g.commit('acme/app', { sha: sha(2), message: 'Fix the docs', files: [] });
      const { status, link, json } = await list(g, `?sha=${sha(3)}`);
      expect(status).toBe(200);
      expect(link).toBeNull();
      expect(json.map((c) => [c.sha, c.parents.map((p) => p.sha)])).toEqual([
        [sha(3), [sha(2)]],
        [sha(2), [sha(1)]],
        [sha(1), []],
      ]);
      expect(json[1]).toMatchObject({
        html_url: `${g.serverUrl}/acme/app/commit/${sha(2)}`,
        commit: { message: 'Fix the docs' },
      });
      // From the middle of the history: that commit and what is older.
      expect((await list(g, `?sha=${sha(2)}`)).json.map((c) => c.sha)).toEqual([sha(2), sha(1)]);
      expect(g.count('listCommits')).toBe(2);
      expect(g.violations).toEqual([]);
    },
  );

  it('follows overlapping histories, the later one winning; no sha starts from the newest head', async () => {
    const g = await world();
    const shas = async (query: string) => (await list(g, query)).json.map((c) => c.sha);
    // Nothing told yet: an empty list without a sha, and a sha with no history is one commit.
    expect(await shas('')).toEqual([]);
    const lone = await list(g, `?sha=${sha(9)}`);
    expect(lone.json.map((c) => [c.sha, c.parents])).toEqual([[sha(9), []]]);
    g.history('acme/app', [sha(3), sha(2)]);
    g.history('acme/app', [sha(2), sha(1)]);
    expect(await shas(`?sha=${sha(3)}`)).toEqual([sha(3), sha(2), sha(1)]);
    expect(await shas('')).toEqual([sha(2), sha(1)]);
    // Rewritten: 3's parent is now 5.
    g.history('acme/app', [sha(4), sha(3), sha(5)]);
    expect(await shas(`?sha=${sha(3)}`)).toEqual([sha(3), sha(5)]);
    expect(await shas('')).toEqual([sha(4), sha(3), sha(5)]);
    // The list is not the commit, nor its statuses or pull requests.
    expect((await call(g, 'GET', `/repos/acme/app/commits/${sha(3)}/statuses`)).status).toBe(200);
    expect((await call(g, 'GET', `/repos/acme/app/commits/${sha(3)}/pulls`)).status).toBe(200);
    g.commit('acme/app', { sha: sha(3), message: 'Three', files: [] });
    const one = await call(g, 'GET', `/repos/acme/app/commits/${sha(3)}`);
    expect(await one.json()).toMatchObject({ sha: sha(3), parents: [{ sha: sha(5) }] });
    expect([g.count('listCommits'), g.count('getCommit'), g.count('listStatuses')]).toEqual([6, 1, 1]);
    expect(g.violations).toEqual([]);
  });

  it('answers a page at a time, with links to the next and last that keep the sha', async () => {
    const g = await world();
    g.history('acme/app', [5, 4, 3, 2, 1].map(sha));
    const first = await list(g, `?sha=${sha(5)}&per_page=2`);
    expect(first.json.map((c) => c.sha)).toEqual([sha(5), sha(4)]);
    const at = (page: number) => `${g.apiUrl}/repos/acme/app/commits?sha=${sha(5)}&per_page=2&page=${page}`;
    expect(first.link).toBe(`<${at(2)}>; rel="next", <${at(3)}>; rel="last"`);
    const next = await fetch(at(2), { headers: { authorization: 'token ghs_ok' } });
    expect(((await next.json()) as Listed[]).map((c) => c.sha)).toEqual([sha(3), sha(2)]);
    expect(next.headers.get('link')).toBe(`<${at(3)}>; rel="next", <${at(3)}>; rel="last"`);
    const last = await list(g, `?sha=${sha(5)}&per_page=2&page=3`);
    expect(last.json.map((c) => c.sha)).toEqual([sha(1)]);
    expect(last.link).toBeNull();
    expect(g.violations).toEqual([]);
  });

  it('answers 30 a page by default and at most 100', async () => {
    const g = await world();
    const shas = Array.from({ length: 120 }, (_, i) => sha(120 - i));
    g.history('acme/app', shas);
    const byDefault = await list(g);
    expect(byDefault.json.map((c) => c.sha)).toEqual(shas.slice(0, 30));
    expect(byDefault.link).toContain('?per_page=30&page=2>; rel="next"');
    const most = await list(g, '?per_page=100&page=2');
    expect(most.json.map((c) => c.sha)).toEqual(shas.slice(100));
    const over = await list(g, '?per_page=150');
    expect(over.json).toHaveLength(100);
    expect(over.link).toBe(
      `<${g.apiUrl}/repos/acme/app/commits?per_page=100&page=2>; rel="next", <${g.apiUrl}/repos/acme/app/commits?per_page=100&page=2>; rel="last"`,
    );
    expect(g.violations).toEqual([]);
  });

  it('answers 404 for a sha GitHub does not know', async () => {
    const g = await world();
    g.history('acme/app', [sha(2), sha(1)]);
    g.forget('acme/app', 'c0ffee');
    const unknown = await call(g, 'GET', '/repos/acme/app/commits?sha=c0ffee');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ message: 'No commit found for SHA: c0ffee' });
    expect(g.violations).toEqual([]);
  });

  it('needs read access to the repository; fails and delays on demand', async () => {
    const g = await world();
    g.grant('ghs_read', { login: 'reader', read: ['acme/app'] });
    g.grant('ghs_other', { login: 'other', read: ['acme/docs'], write: ['acme/docs'] });
    g.history('acme/app', [sha(2), sha(1)]);
    expect((await list(g, '', 'ghs_read')).json.map((c) => c.sha)).toEqual([sha(2), sha(1)]);
    const unseen = await list(g, '', 'ghs_other');
    expect(unseen.status).toBe(404);
    expect(unseen.json).toMatchObject({ message: 'Not Found' });
    expect((await list(g, '', 'ghs_nope')).status).toBe(401);
    g.fail('listCommits', { status: 502 });
    g.delay('listCommits', 50);
    const started = Date.now();
    expect((await list(g)).status).toBe(502);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect((await list(g)).status).toBe(200);
    expect(g.count('listCommits')).toBe(5);
    expect(g.violations).toEqual([]);
  });
});

describe('GitHub emulator: removing a label', () => {
  const remove = (g: GitHubEmulator, name: string, token = 'ghs_ok', number = 1) =>
    call(
      g,
      'DELETE',
      `/repos/acme/app/issues/${number}/labels/${encodeURIComponent(name)}`,
      undefined,
      token,
    );

  it.each(['', '/api/v3'] as const)(
    'removes a label the thread has, answering the others (prefix %j)',
    async (prefix) => {
      const g = await world(prefix);
      g.get('acme/app', 1).labels.push('bug', 'needs docs', 'later');
      const res = await remove(g, 'needs docs');
      expect(res.status).toBe(200);
      expect(((await res.json()) as { name: string }[]).map((l) => l.name)).toEqual(['bug', 'later']);
      expect(g.get('acme/app', 1).labels).toEqual(['bug', 'later']);
      expect(g.count('removeLabel')).toBe(1);
      expect(g.violations).toEqual([]);
    },
  );

  it('answers 404 "Label does not exist" for a label the thread does not have', async () => {
    const g = await world();
    g.get('acme/app', 1).labels.push('bug');
    const res = await remove(g, 'wontfix');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ message: 'Label does not exist' });
    expect((await remove(g, 'bug', 'ghs_ok', 99)).status).toBe(404);
    expect(g.get('acme/app', 1).labels).toEqual(['bug']);
    expect(g.violations).toEqual([]);
  });

  it('needs write access; fails and delays on demand', async () => {
    const g = await world();
    g.grant('ghs_read', { login: 'reader', read: ['acme/app'] });
    g.grant('ghs_other', { login: 'other', read: ['acme/docs'], write: ['acme/docs'] });
    g.get('acme/app', 1).labels.push('bug');
    const refused = await remove(g, 'bug', 'ghs_read');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ message: 'Resource not accessible by integration' });
    expect((await remove(g, 'bug', 'ghs_other')).status).toBe(404);
    expect(g.get('acme/app', 1).labels).toEqual(['bug']);
    g.fail('removeLabel', { status: 500 });
    g.delay('removeLabel', 50);
    const started = Date.now();
    expect((await remove(g, 'bug')).status).toBe(500);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(g.get('acme/app', 1).labels).toEqual(['bug']);
    expect((await remove(g, 'bug')).status).toBe(200);
    expect(g.get('acme/app', 1).labels).toEqual([]);
    expect(g.count('removeLabel')).toBe(4);
    expect(g.violations).toEqual([]);
  });
});

describe('GitHub emulator: auto-merge through GraphQL', () => {
  const MUTATION =
    'mutation($pullRequestId: ID!, $mergeMethod: PullRequestMergeMethod!) { enablePullRequestAutoMerge(input: { pullRequestId: $pullRequestId, mergeMethod: $mergeMethod }) { pullRequest { number autoMergeRequest { mergeMethod } } } }';
  const graphqlUrl = (g: GitHubEmulator) =>
    g.apiUrl.endsWith('/api/v3') ? `${g.apiUrl.slice(0, -'/v3'.length)}/graphql` : `${g.apiUrl}/graphql`;
  const graphql = async (g: GitHubEmulator, body: unknown, token = 'ghs_ok') => {
    const res = await fetch(graphqlUrl(g), {
      method: 'POST',
      headers: { authorization: `bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const nodeId = async (g: GitHubEmulator, number: number) => {
    const res = await call(g, 'GET', `/repos/acme/app/pulls/${number}`);
    return ((await res.json()) as { node_id: string }).node_id;
  };
  const enable = (g: GitHubEmulator, pullRequestId: string, mergeMethod = 'SQUASH', token = 'ghs_ok') =>
    graphql(g, { query: MUTATION, variables: { pullRequestId, mergeMethod } }, token);
  const refusal = (type: string, message: string) => ({
    status: 200,
    json: {
      data: { enablePullRequestAutoMerge: null },
      errors: [expect.objectContaining({ type, message, path: ['enablePullRequestAutoMerge'] })],
    },
  });

  it.each(['', '/api/v3'] as const)(
    'enables auto-merge with the method asked, on the node id the REST reply carries (prefix %j)',
    async (prefix) => {
      const g = await world(prefix);
      const pr = g.thread('acme/app');
      const id = await nodeId(g, pr.number);
      expect(id).toMatch(/^PR_\d+_2$/);
      // Stable, and another pull request's is another.
      expect(await nodeId(g, pr.number)).toBe(id);
      expect(await nodeId(g, 1)).not.toBe(id);
      expect(await enable(g, id)).toEqual({
        status: 200,
        json: {
          data: {
            enablePullRequestAutoMerge: {
              pullRequest: { number: pr.number, autoMergeRequest: { mergeMethod: 'SQUASH' } },
            },
          },
        },
      });
      expect(g.get('acme/app', pr.number).autoMerge).toEqual({ method: 'SQUASH', by: 'bot' });
      // The REST reply tells it too.
      const got = await call(g, 'GET', `/repos/acme/app/pulls/${pr.number}`);
      expect(await got.json()).toMatchObject({
        node_id: id,
        auto_merge: { merge_method: 'squash', enabled_by: { login: 'bot' } },
      });
      // Whitespace is no matter; the viewer query is still its own route.
      const spaced = {
        query: MUTATION.replace(/ /g, '\n  '),
        variables: { pullRequestId: id, mergeMethod: 'REBASE' },
      };
      expect((await graphql(g, spaced)).json).toMatchObject({
        data: {
          enablePullRequestAutoMerge: {
            pullRequest: { number: pr.number, autoMergeRequest: { mergeMethod: 'REBASE' } },
          },
        },
      });
      expect(pr.autoMerge).toEqual({ method: 'REBASE', by: 'bot' });
      expect((await graphql(g, { query: 'query { viewer { login } }' })).json).toEqual({
        data: { viewer: { login: 'bot' } },
      });
      expect([g.count('enableAutoMerge'), g.count('graphql')]).toEqual([2, 1]);
      expect(g.violations).toEqual([]);
    },
  );

  it('refuses as GitHub does, with HTTP 200 and an error of its type', async () => {
    const g = await world();
    g.grant('ghs_read', { login: 'reader', read: ['acme/app'] });
    g.grant('ghs_other', { login: 'other', read: ['acme/docs'], write: ['acme/docs'] });
    const open = g.thread('acme/app');
    const id = await nodeId(g, open.number);

    expect(await enable(g, id, 'MERGE', 'ghs_read')).toEqual(
      refusal('FORBIDDEN', 'Resource not accessible by integration'),
    );
    expect(await enable(g, id, 'MERGE', 'ghs_other')).toEqual(
      refusal('NOT_FOUND', `Could not resolve to a node with the global id of '${id}'`),
    );
    expect(await enable(g, 'PR_nope')).toEqual(
      refusal('NOT_FOUND', "Could not resolve to a node with the global id of 'PR_nope'"),
    );

    g.allowAutoMerge('acme/app', false);
    expect(await enable(g, id)).toEqual(
      refusal('UNPROCESSABLE', 'Pull request Auto merge is not allowed for this repository'),
    );
    g.allowAutoMerge('acme/app', true);

    const clean = g.thread('acme/app', { clean: true });
    expect(await enable(g, await nodeId(g, clean.number))).toEqual(
      refusal('UNPROCESSABLE', 'Pull request Pull request is in clean status'),
    );
    const closed = g.thread('acme/app', { state: 'closed' });
    expect(await enable(g, await nodeId(g, closed.number))).toEqual(
      refusal('UNPROCESSABLE', 'Pull request Pull request is closed'),
    );
    const merged = g.thread('acme/app', { merged: true });
    expect(await enable(g, await nodeId(g, merged.number))).toEqual(
      refusal('UNPROCESSABLE', 'Pull request Pull request is closed'),
    );
    // The thread's flags are live: once no longer clean, it can be enabled.
    clean.clean = false;
    expect((await enable(g, await nodeId(g, clean.number), 'MERGE')).json).toMatchObject({
      data: { enablePullRequestAutoMerge: { pullRequest: { autoMergeRequest: { mergeMethod: 'MERGE' } } } },
    });
    for (const t of [open, closed, merged]) expect(t.autoMerge).toBeUndefined();
    expect(clean.autoMerge).toEqual({ method: 'MERGE', by: 'bot' });
    expect(g.violations).toEqual([]);
  });

  it('records a merge method the type refuses, and any other operation, as violations', async () => {
    const g = await world();
    const id = await nodeId(g, 1);
    const bad = await enable(g, id, 'FAST_FORWARD');
    expect(bad).toEqual({
      status: 200,
      json: {
        errors: [
          expect.objectContaining({
            message: 'Variable $mergeMethod of type PullRequestMergeMethod! was provided invalid value',
          }),
        ],
      },
    });
    const other =
      'mutation($id: ID!) { disablePullRequestAutoMerge(input: { pullRequestId: $id }) { clientMutationId } }';
    // Not in the cut of GitHub's schema the emulator serves (the action never sends it).
    expect((await graphql(g, { query: other, variables: { id } })).json).toEqual({
      errors: [
        {
          message: expect.stringContaining(
            'Cannot query field "disablePullRequestAutoMerge" on type "Mutation"',
          ),
        },
      ],
    });
    expect(g.get('acme/app', 1).autoMerge).toBeUndefined();
    expect([g.count('enableAutoMerge'), g.count('graphql')]).toEqual([1, 1]);
    expect(g.violations).toEqual([
      expect.stringContaining('graphql enableAutoMerge: $mergeMethod Expected "FAST_FORWARD" to be one of'),
      expect.stringContaining("graphql: refused by the cut of GitHub's schema the emulator serves"),
    ]);
  });

  it('fails and delays the mutation on demand, apart from the viewer query', async () => {
    const g = await world();
    const id = await nodeId(g, 1);
    g.fail('enableAutoMerge', { status: 502 });
    g.delay('enableAutoMerge', 50);
    expect((await graphql(g, { query: 'query { viewer { login } }' })).status).toBe(200);
    const started = Date.now();
    expect((await enable(g, id)).status).toBe(502);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(g.get('acme/app', 1).autoMerge).toBeUndefined();
    expect((await enable(g, id)).status).toBe(200);
    expect(g.get('acme/app', 1).autoMerge).toEqual({ method: 'SQUASH', by: 'bot' });
    g.fail('graphql', { status: 500 });
    expect((await enable(g, id)).status).toBe(200);
    expect((await graphql(g, { query: 'query { viewer { login } }' })).status).toBe(500);
    expect([g.count('enableAutoMerge'), g.count('graphql')]).toEqual([3, 2]);
    expect(g.violations).toEqual([]);
  });

  const DRAFT =
    'mutation($pullRequestId: ID!) { convertPullRequestToDraft(input: { pullRequestId: $pullRequestId }) { pullRequest { number isDraft } } }';
  const READY =
    'mutation($pullRequestId: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $pullRequestId }) { pullRequest { number isDraft } } }';

  it.each(['', '/api/v3'] as const)(
    "turns a pull request into a draft and back, as GitHub's schema has the mutations; REST shows it (prefix %j)",
    async (prefix) => {
      const g = await world(prefix);
      const id = await nodeId(g, 1);
      expect(await graphql(g, { query: DRAFT, variables: { pullRequestId: id } })).toEqual({
        status: 200,
        json: { data: { convertPullRequestToDraft: { pullRequest: { number: 1, isDraft: true } } } },
      });
      const pull = async () =>
        ((await (await call(g, 'GET', '/repos/acme/app/pulls/1')).json()) as { draft: boolean }).draft;
      expect(await pull()).toBe(true);
      expect(await graphql(g, { query: READY, variables: { pullRequestId: id } })).toEqual({
        status: 200,
        json: { data: { markPullRequestReadyForReview: { pullRequest: { number: 1, isDraft: false } } } },
      });
      expect(await pull()).toBe(false);
      expect([g.count('draftPull'), g.count('readyPull')]).toEqual([1, 1]);
      expect(g.violations).toEqual([]);
    },
  );

  it('refuses a draft as GitHub does: NOT_FOUND unseen, FORBIDDEN read-only, UNPROCESSABLE closed; a document the schema refuses is a violation', async () => {
    const g = await world();
    g.grant('ghs_read', { login: 'reader', read: ['acme/app'], write: [] });
    g.grant('ghs_other', { login: 'other', read: [], write: [] });
    const id = await nodeId(g, 1);
    const types = [];
    for (const token of ['ghs_other', 'ghs_read'])
      types.push(
        (
          (await graphql(g, { query: DRAFT, variables: { pullRequestId: id } }, token)).json.errors as {
            type: string;
          }[]
        )[0]?.type,
      );
    g.get('acme/app', 1).state = 'closed';
    types.push(
      (
        (await graphql(g, { query: READY, variables: { pullRequestId: id } })).json.errors as {
          type: string;
        }[]
      )[0]?.type,
    );
    expect(types).toEqual(['NOT_FOUND', 'FORBIDDEN', 'UNPROCESSABLE']);
    expect(g.get('acme/app', 1).draft).toBeUndefined();
    // A field GitHub's PullRequest does not have: refused before anything runs.
    const wrong = await graphql(g, {
      query:
        'mutation($pullRequestId: ID!) { convertPullRequestToDraft(input: { pullRequestId: $pullRequestId }) { pullRequest { draft } } }',
      variables: { pullRequestId: id },
    });
    expect(wrong.json).toEqual({
      errors: [{ message: expect.stringContaining('Cannot query field "draft" on type "PullRequest"') }],
    });
    expect(g.violations).toEqual([expect.stringContaining("graphql: refused by the cut of GitHub's schema")]);
  });
});

describe("GitHub emulator: a pull request's opener, its commits, and closing it", () => {
  it.each(['', '/api/v3'] as const)(
    'tells who opened it and who made each commit, a page at a time (prefix %j)',
    async (prefix) => {
      const g = await world(prefix);
      const pr = g.thread('acme/app', {
        opener: 'docs-app[bot]',
        pullCommits: [
          { sha: 'a'.repeat(40), author: 'docs-app[bot]', committer: 'web-flow' },
          { sha: 'b'.repeat(40), author: 'alice', committer: 'alice' },
          { sha: 'c'.repeat(40), author: null, committer: null },
        ],
      });
      const got = (await (await call(g, 'GET', `/repos/acme/app/pulls/${pr.number}`)).json()) as {
        user: { login: string; type: string };
      };
      expect(got.user).toMatchObject({ login: 'docs-app[bot]', type: 'Bot' });
      const first = await call(g, 'GET', `/repos/acme/app/pulls/${pr.number}/commits?per_page=2&page=1`);
      expect(first.headers.get('link')).toContain('rel="next"');
      const second = await call(g, 'GET', `/repos/acme/app/pulls/${pr.number}/commits?per_page=2&page=2`);
      const commits = [...((await first.json()) as unknown[]), ...((await second.json()) as unknown[])] as {
        sha: string;
        author: { login: string } | null;
        committer: { login: string } | null;
      }[];
      expect(commits.map((c) => [c.sha[0], c.author?.login ?? null, c.committer?.login ?? null])).toEqual([
        ['a', 'docs-app[bot]', 'web-flow'],
        ['b', 'alice', 'alice'],
        ['c', null, null],
      ]);
      // By default: the head, by whoever opened it.
      const plain = g.thread('acme/app', { headSha: 'd'.repeat(40), opener: 'carol' });
      const listed = await call(g, 'GET', `/repos/acme/app/pulls/${plain.number}/commits`);
      expect(await listed.json()).toMatchObject([
        { sha: 'd'.repeat(40), author: { login: 'carol' }, committer: { login: 'carol' } },
      ]);
      expect((await call(g, 'GET', '/repos/acme/app/pulls/99/commits')).status).toBe(404);
      expect(g.count('listPullCommits')).toBe(4);
      expect(g.violations).toEqual([]);
    },
  );

  it('closes a pull request with write access only, and keeps a merged one merged', async () => {
    const g = await world();
    g.grant('ghs_read', { login: 'reader', read: ['acme/app'] });
    const pr = g.thread('acme/app');
    const path = `/repos/acme/app/pulls/${pr.number}`;
    const refused = await call(g, 'PATCH', path, { state: 'closed' }, 'ghs_read');
    expect(refused.status).toBe(403);
    expect(pr.state).toBe('open');
    const closed = await call(g, 'PATCH', path, { state: 'closed' });
    expect(closed.status).toBe(200);
    expect(await closed.json()).toMatchObject({ number: pr.number, state: 'closed', merged: false });
    expect(pr.state).toBe('closed');
    expect((await call(g, 'PATCH', path, { state: 'shut' })).status).toBe(422);
    const merged = g.thread('acme/app', { merged: true, state: 'closed' });
    expect((await call(g, 'PATCH', `/repos/acme/app/pulls/${merged.number}`, { state: 'open' })).status).toBe(
      422,
    );
    expect(merged.state).toBe('closed');
    const issue = g.thread('acme/app', { pull: false });
    expect(
      (await call(g, 'PATCH', `/repos/acme/app/pulls/${issue.number}`, { state: 'closed' })).status,
    ).toBe(404);
    g.fail('updatePull', { status: 502 });
    expect((await call(g, 'PATCH', path, { state: 'open' })).status).toBe(502);
    expect(pr.state).toBe('closed');
    expect(g.count('updatePull')).toBe(6);
    // 'shut' is no state the description allows: the request is recorded as one it refuses.
    expect(g.violations).toEqual([
      expect.stringContaining('PATCH /repos/{owner}/{repo}/pulls/{pull_number} body'),
    ]);
  });
});

describe('GitHub emulator: workflow dispatches', () => {
  const dispatch = (g: GitHubEmulator, workflow: string | number, body: unknown, token = 'ghs_ok') =>
    call(g, 'POST', `/repos/acme/app/actions/workflows/${workflow}/dispatches`, body, token);

  it.each(['', '/api/v3'] as const)(
    'records an accepted dispatch, by file name or id, and answers 204 with no body (prefix %j)',
    async (prefix) => {
      const g = await world(prefix);
      const docs = g.workflow('acme/app', 'docs.yml', { inputs: ['docs-thread', 'dry-run'] });
      const first = await dispatch(g, 'docs.yml', { ref: 'main', inputs: { 'docs-thread': '7' } });
      expect(first.status).toBe(204);
      expect(first.headers.get('content-type')).toBeNull();
      expect(await first.text()).toBe('');
      const second = await dispatch(g, docs.id, { ref: 'topic-1', inputs: { 'dry-run': true } });
      expect(second.status).toBe(204);
      expect((await dispatch(g, 'docs.yml', { ref: 'main' })).status).toBe(204);
      expect(g.dispatches('acme/app')).toEqual([
        { workflowId: 'docs.yml', ref: 'main', inputs: { 'docs-thread': '7' } },
        { workflowId: 'docs.yml', ref: 'topic-1', inputs: { 'dry-run': 'true' } },
        { workflowId: 'docs.yml', ref: 'main', inputs: {} },
      ]);
      expect(g.count('createWorkflowDispatch')).toBe(3);
      expect(g.violations).toEqual([]);
    },
  );

  it("answers the run's id and links when asked, where the description lists that 200", async () => {
    const g = await world();
    g.workflow('acme/app', 'docs.yml');
    const res = await dispatch(g, 'docs.yml', { ref: 'main', return_run_details: true });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { workflow_run_id: number; run_url: string; html_url: string };
    expect(json).toEqual({
      workflow_run_id: expect.any(Number),
      run_url: `${g.apiUrl}/repos/acme/app/actions/runs/${json.workflow_run_id}`,
      html_url: `${g.serverUrl}/acme/app/actions/runs/${json.workflow_run_id}`,
    });
    // The reply the emulator gave is one github.com's description allows.
    const template = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
    expect(gitHubContract('api.github.com').checkResponse('POST', template, 200, json)).toEqual([]);
    expect(gitHubContract('api.github.com').checkResponse('POST', template, 204, undefined)).toEqual([]);
    expect(gitHubContract('api.github.com').checkResponse('POST', template, 204, json)).toEqual([
      `POST ${template} 204 has no body in the description`,
    ]);
    // GHES 3.19's description lists only 204: the emulator answers that, whatever is asked.
    expect(gitHubContract('ghes-3.19').checkResponse('POST', template, 200, json)).toEqual([
      `POST ${template} 200 is not a status this operation answers`,
    ]);
    const ghesOne = await startGitHubEmulator({ prefix: '/api/v3' });
    try {
      ghesOne.grant('ghs_ok', { login: 'bot', read: ['acme/app'], write: ['acme/app'] });
      ghesOne.workflow('acme/app', 'docs.yml');
      expect((await dispatch(ghesOne, 'docs.yml', { ref: 'main', return_run_details: true })).status).toBe(
        204,
      );
      expect(ghesOne.dispatches('acme/app')).toHaveLength(1);
      expect(ghesOne.violations).toEqual([]);
    } finally {
      await ghesOne.close();
    }
    expect(g.dispatches('acme/app')).toEqual([{ workflowId: 'docs.yml', ref: 'main', inputs: {} }]);
    expect(g.violations).toEqual([]);
  });

  it('refuses as GitHub does: 404 for a workflow it does not know, 422 for an input or a ref', async () => {
    const g = await world();
    const docs = g.workflow('acme/app', 'docs.yml', { inputs: ['docs-thread'] });
    const refusals = [];
    for (const [workflow, body] of [
      ['other.yml', { ref: 'main' }],
      [docs.id + 1, { ref: 'main' }],
      ['docs.yml', { ref: 'main', inputs: { name: 'x', 'docs-thread': '1', home: 'y' } }],
      ['docs.yml', { ref: '' }],
    ] as const) {
      const res = await dispatch(g, workflow, body);
      refusals.push([res.status, ((await res.json()) as { message: string }).message]);
    }
    expect(refusals).toEqual([
      [404, 'Not Found'],
      [404, 'Not Found'],
      [422, 'Unexpected inputs provided: ["name", "home"]'],
      [422, 'No ref found for: '],
    ]);
    expect(g.dispatches('acme/app')).toEqual([]);
    expect(g.violations).toEqual([]);
  });

  it('needs write access: 403 for a read-only token, 404 for one that cannot see the repository', async () => {
    const g = await world();
    g.workflow('acme/app', 'docs.yml');
    g.grant('ghs_read', { login: 'reader', read: ['acme/app'] });
    g.grant('ghs_other', { login: 'other', read: ['acme/docs'], write: ['acme/docs'] });
    const refused = await dispatch(g, 'docs.yml', { ref: 'main' }, 'ghs_read');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ message: 'Resource not accessible by integration' });
    expect((await dispatch(g, 'docs.yml', { ref: 'main' }, 'ghs_other')).status).toBe(404);
    expect(g.dispatches('acme/app')).toEqual([]);
    expect(g.violations).toEqual([]);
  });

  it('fails on demand, and records a body without a ref as a violation', async () => {
    const g = await world();
    g.workflow('acme/app', 'docs.yml');
    g.fail('createWorkflowDispatch', { status: 500 }, { status: 502 });
    expect((await dispatch(g, 'docs.yml', { ref: 'main' })).status).toBe(500);
    g.unfail('createWorkflowDispatch');
    expect((await dispatch(g, 'docs.yml', { ref: 'main' })).status).toBe(204);
    expect(g.dispatches('acme/app')).toHaveLength(1);
    expect(g.violations).toEqual([]);
    await dispatch(g, 'docs.yml', { inputs: {} });
    expect(g.violations).toEqual([
      "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches body must have required property 'ref'",
    ]);
  });
});

describe('GitHub emulator: git refs', () => {
  const SHA = 'c'.repeat(40);
  /** A token that may write acme/app's statuses and the rest, and its contents (git refs) too. */
  async function refsWorld(prefix: '' | '/api/v3' = '') {
    const g = await world(prefix);
    g.grant('ghs_contents', {
      login: 'bot',
      read: ['acme/app'],
      write: ['acme/app'],
      contents: ['acme/app'],
    });
    return g;
  }
  const create = (g: GitHubEmulator, ref: string, sha = SHA, token = 'ghs_contents') =>
    call(g, 'POST', '/repos/acme/app/git/refs', { ref, sha }, token);
  const message = async (res: Response) => ((await res.json()) as { message: string }).message;

  it.each(['', '/api/v3'] as const)(
    'creates a ref, lists every one whose name starts with the prefix at once, and deletes it (prefix %j)',
    async (prefix) => {
      const g = await refsWorld(prefix);
      const created = await create(g, 'refs/agent-job-action/waiting/k1/aa');
      expect(created.status).toBe(201);
      const ref = (await created.json()) as Record<string, unknown>;
      expect(ref).toMatchObject({
        ref: 'refs/agent-job-action/waiting/k1/aa',
        url: `${g.apiUrl}/repos/acme/app/git/refs/agent-job-action/waiting/k1/aa`,
        object: { type: 'commit', sha: SHA, url: `${g.apiUrl}/repos/acme/app/git/commits/${SHA}` },
      });
      expect(created.headers.get('location')).toBe(ref.url);
      for (let i = 0; i < 120; i++)
        expect(
          (await create(g, `refs/agent-job-action/waiting/k2/${String(i).padStart(3, '0')}`)).status,
        ).toBe(201);
      g.addRef('acme/app', 'refs/heads/main', 'd'.repeat(40));
      // Past 100, in one reply; the name as Octokit escapes it (`%2F`), or with its slashes.
      const listed = await call(
        g,
        'GET',
        '/repos/acme/app/git/matching-refs/agent-job-action%2Fwaiting%2Fk2',
      );
      expect(listed.status).toBe(200);
      expect(listed.headers.get('link')).toBeNull();
      const names = ((await listed.json()) as { ref: string }[]).map((r) => r.ref);
      expect(names).toHaveLength(120);
      expect(names[0]).toBe('refs/agent-job-action/waiting/k2/000');
      const all = await call(g, 'GET', '/repos/acme/app/git/matching-refs/agent-job-action/waiting');
      expect(((await all.json()) as unknown[]).length).toBe(121);
      const none = await call(g, 'GET', '/repos/acme/app/git/matching-refs/agent-job-action/waiting/k3');
      expect(await none.json()).toEqual([]);
      const deleted = await call(
        g,
        'DELETE',
        '/repos/acme/app/git/refs/agent-job-action%2Fwaiting%2Fk1%2Faa',
        undefined,
        'ghs_contents',
      );
      expect(deleted.status).toBe(204);
      expect(await deleted.text()).toBe('');
      expect(g.refs('acme/app').map((r) => r.ref)).not.toContain('refs/agent-job-action/waiting/k1/aa');
      expect(g.refs('acme/app')).toContainEqual({ ref: 'refs/heads/main', sha: 'd'.repeat(40) });
      expect(g.count('createRef')).toBe(121);
      expect(g.count('listMatchingRefs')).toBe(3);
      expect(g.count('deleteRef')).toBe(1);
      expect(g.violations).toEqual([]);
    },
  );

  it('refuses as GitHub does: 422 for a ref that exists, a commit it does not know, a name git refuses, a ref to delete that is not there', async () => {
    const g = await refsWorld();
    g.forget('acme/app', 'e'.repeat(40));
    expect((await create(g, 'refs/agent-job-action/x/1')).status).toBe(201);
    const refusals = [];
    for (const [ref, sha] of [
      ['refs/agent-job-action/x/1', SHA],
      ['refs/agent-job-action/x/2', 'e'.repeat(40)],
      ['refs/x', SHA],
      ['heads/x/y', SHA],
      ['refs/agent-job-action/../y', SHA],
      ['refs/agent-job-action/x y', SHA],
    ] as const) {
      const res = await create(g, ref, sha);
      refusals.push([res.status, await message(res)]);
    }
    const gone = await call(
      g,
      'DELETE',
      '/repos/acme/app/git/refs/agent-job-action/x/2',
      undefined,
      'ghs_contents',
    );
    refusals.push([gone.status, await message(gone)]);
    expect(refusals).toEqual([
      [422, 'Reference already exists'],
      [422, 'Object does not exist'],
      [422, 'Reference name must contain at least three slash-separated components.'],
      [422, 'Reference name must contain at least three slash-separated components.'],
      [422, 'refs/agent-job-action/../y is not a valid ref name.'],
      [422, 'refs/agent-job-action/x y is not a valid ref name.'],
      [422, 'Reference does not exist'],
    ]);
    expect(g.refs('acme/app')).toEqual([{ ref: 'refs/agent-job-action/x/1', sha: SHA }]);
    expect(g.violations).toEqual([]);
  });

  it('writes refs only with contents write: 403 for a token with other write access alone; listing needs read', async () => {
    const g = await refsWorld();
    g.grant('ghs_read', { login: 'reader', read: ['acme/app'] });
    g.grant('ghs_other', {
      login: 'other',
      read: ['acme/docs'],
      write: ['acme/docs'],
      contents: ['acme/docs'],
    });
    g.addRef('acme/app', 'refs/agent-job-action/x/1', SHA);
    // `ghs_ok` may write statuses, comments and the rest: as `contents: read` beside them.
    const statuses = await call(g, 'POST', `/repos/acme/app/statuses/${SHA}`, {
      state: 'pending',
      context: 'ci',
    });
    expect(statuses.status).toBe(201);
    const answers = [];
    for (const token of ['ghs_ok', 'ghs_read', 'ghs_other']) {
      const made = await create(g, 'refs/agent-job-action/x/2', SHA, token);
      const dropped = await call(
        g,
        'DELETE',
        '/repos/acme/app/git/refs/agent-job-action/x/1',
        undefined,
        token,
      );
      const listed = await call(
        g,
        'GET',
        '/repos/acme/app/git/matching-refs/agent-job-action',
        undefined,
        token,
      );
      answers.push([token, made.status, await message(made), dropped.status, listed.status]);
    }
    expect(answers).toEqual([
      ['ghs_ok', 403, 'Resource not accessible by integration', 403, 200],
      ['ghs_read', 403, 'Resource not accessible by integration', 403, 200],
      ['ghs_other', 404, 'Not Found', 404, 404],
    ]);
    expect(g.refs('acme/app')).toEqual([{ ref: 'refs/agent-job-action/x/1', sha: SHA }]);
    expect(g.violations).toEqual([]);
  });

  it('fails on demand, and records a body without a sha as a violation', async () => {
    const g = await refsWorld();
    g.fail('createRef', { status: 502 });
    g.fail('listMatchingRefs', { status: 500 });
    expect((await create(g, 'refs/agent-job-action/x/1')).status).toBe(502);
    expect((await call(g, 'GET', '/repos/acme/app/git/matching-refs/agent-job-action')).status).toBe(500);
    expect(g.refs('acme/app')).toEqual([]);
    expect((await create(g, 'refs/agent-job-action/x/1')).status).toBe(201);
    expect(g.violations).toEqual([]);
    await call(g, 'POST', '/repos/acme/app/git/refs', { ref: 'refs/agent-job-action/x/2' }, 'ghs_contents');
    expect(g.violations).toEqual([
      "POST /repos/{owner}/{repo}/git/refs body must have required property 'sha'",
    ]);
  });
});

describe("the emulator's contract, cut from GitHub's description", () => {
  it('holds every operation the emulator serves, in both descriptions', async () => {
    const { ROUTES } = await import('../emulators/github.js');
    const { readFileSync } = await import('node:fs');
    const wanted = JSON.parse(
      readFileSync(new URL('../emulators/openapi/github/operations.json', import.meta.url), 'utf8'),
    ) as { operations: [string, string][]; specs: string[] };
    expect(ROUTES.map((r) => [r.method.toLowerCase(), r.template]).sort()).toEqual(
      [...wanted.operations].sort(),
    );
    for (const spec of wanted.specs) {
      const cut = JSON.parse(
        readFileSync(new URL(`../emulators/openapi/github/${spec}.json`, import.meta.url), 'utf8'),
      ) as { paths: Record<string, Record<string, unknown>> };
      for (const [method, template] of wanted.operations) expect(cut.paths[template]?.[method]).toBeDefined();
    }
  });
});

describe('GitHub emulator: links and times as GitHub sends them, checked with formats on', () => {
  /** Every string of a reply that is a link (`http…`), wherever it sits. */
  const links = (value: unknown): string[] =>
    typeof value === 'string'
      ? /^https?:/.test(value)
        ? [value]
        : []
      : Array.isArray(value)
        ? value.flatMap(links)
        : value && typeof value === 'object'
          ? Object.values(value).flatMap(links)
          : [];

  it.each(['', '/api/v3'] as const)(
    "gives users valid links on the emulator's own base, a bot its app's page (prefix %j)",
    async (prefix) => {
      const g = await world(prefix);
      g.grant('ghs_bot', {
        login: 'github-actions[bot]',
        type: 'Bot',
        read: ['acme/app'],
        write: ['acme/app'],
      });
      const pr = g.thread('acme/app');
      g.addComment('acme/app', pr.number, { login: 'octo cat', body: 'a login no URI may hold as it is' });
      const posted = await call(
        g,
        'POST',
        `/repos/acme/app/issues/${pr.number}/comments`,
        { body: 'hi' },
        'ghs_bot',
      );
      const bot = ((await posted.json()) as { user: Record<string, unknown> }).user;
      expect(bot).toMatchObject({
        login: 'github-actions[bot]',
        type: 'Bot',
        html_url: `${g.serverUrl}/apps/github-actions`,
        url: `${g.apiUrl}/users/github-actions%5Bbot%5D`,
        followers_url: `${g.apiUrl}/users/github-actions%5Bbot%5D/followers`,
        following_url: `${g.apiUrl}/users/github-actions%5Bbot%5D/following{/other_user}`,
      });
      const listed = await call(g, 'GET', `/repos/acme/app/issues/${pr.number}/comments`);
      const [human] = (await listed.json()) as { user: Record<string, unknown> }[];
      expect(human?.user).toMatchObject({
        login: 'octo cat',
        type: 'User',
        html_url: `${g.serverUrl}/octo%20cat`,
        url: `${g.apiUrl}/users/octo%20cat`,
      });
      expect(human?.user.id).not.toBe(bot.id);
      expect(g.violations).toEqual([]);
    },
  );

  it("moves every link of the description's examples onto the emulator", async () => {
    const g = await world();
    const pr = g.thread('acme/app', {
      files: [{ filename: 'docs/a b#c?.md', status: 'added', additions: 1, deletions: 0 }],
    });
    const got = (await (await call(g, 'GET', `/repos/acme/app/pulls/${pr.number}`)).json()) as unknown;
    const files = (await (
      await call(g, 'GET', `/repos/acme/app/pulls/${pr.number}/files`)
    ).json()) as unknown;
    const all = [...links(got), ...links(files)];
    expect(all.length).toBeGreaterThan(50);
    expect(all.filter((link) => !link.startsWith(g.serverUrl))).toEqual([]);
    expect(all.filter((link) => !FORMATS.uri.validate(link.replace(/\{[^}]*\}/g, '')))).toEqual([]);
    expect(links(files)).toContain(`${g.serverUrl}/acme/app/blob/main/docs/a%20b%23c%3F.md`);
    expect(g.violations).toEqual([]);
  });

  it('records a reply whose link is not a URI, or whose time is not a date-time', () => {
    const contract = gitHubContract();
    const status = contract.example('status');
    const template = '/repos/{owner}/{repo}/commits/{ref}/statuses';
    expect(contract.checkResponse('GET', template, 200, [status])).toEqual([]);
    // What the emulator sent for a bot before: its login as a path, brackets and all.
    const bot = { ...contract.example('simple-user'), html_url: 'https://github.com/github-actions[bot]' };
    expect(contract.checkResponse('GET', template, 200, [{ ...status, creator: bot }])).toEqual([
      `GET ${template} 200 body/0/creator/html_url must match format "uri"`,
    ]);
    const posted = '/repos/{owner}/{repo}/issues/{issue_number}/comments';
    const comment = contract.example('issue-comment');
    expect(contract.checkResponse('POST', posted, 201, comment)).toEqual([]);
    expect(contract.checkResponse('POST', posted, 201, { ...comment, html_url: 'pull/1' })).toEqual([
      `POST ${posted} 201 body/html_url must match format "uri"`,
    ]);
    expect(contract.checkResponse('POST', posted, 201, { ...comment, created_at: 'yesterday' })).toEqual([
      `POST ${posted} 201 body/created_at must match format "date-time"`,
    ]);
    const permission = '/repos/{owner}/{repo}/collaborators/{username}/permission';
    const answer = contract.example(
      'repository-collaborator-permission-response-if-user-has-admin-permissions',
    );
    const user = { ...(answer.user as object), role_name: 'admin' };
    expect(contract.checkResponse('GET', permission, 200, { ...answer, user })).toEqual([]);
    expect(
      contract.checkResponse('GET', permission, 200, {
        ...answer,
        user: { ...user, html_url: 'https://github.com/apps/x y' },
      }),
    ).toEqual([`GET ${permission} 200 body/user/html_url must match format "uri"`]);
  });

  it('checks every format the descriptions use, as ajv-formats would', () => {
    const used = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        const { format } = node as { format?: unknown };
        if (typeof format === 'string') used.add(format);
        Object.values(node).forEach(walk);
      }
    };
    walk(githubCom);
    walk(ghes);
    expect([...used].sort()).toEqual(Object.keys(FORMATS).sort());

    const uri = FORMATS.uri.validate;
    for (const good of [
      'https://api.github.com/users/github-actions%5Bbot%5D',
      'https://github.com/apps/github-actions',
      'http://127.0.0.1:8080/acme/app/pull/1#issuecomment-2',
      'http://[::1]:3000/x?y=1&z=%20',
      'https://user:pass@example.com/a/b;c=d',
      'mailto:octocat@github.com',
    ])
      expect([good, uri(good)]).toEqual([good, true]);
    for (const bad of [
      'https://github.com/github-actions[bot]',
      'https://github.com/a b',
      'https://github.com/100%',
      '/users/octocat',
      'users/octocat',
      '',
      'https://github.com/\u00e9',
      'https://exa mple.com/',
    ])
      expect([bad, uri(bad)]).toEqual([bad, false]);

    const dateTime = FORMATS['date-time'].validate;
    for (const good of [
      '2011-04-14T16:00:49Z',
      '2026-11-25T23:51:17.123+01:00',
      '2024-02-29T00:00:00z',
      '2016-12-31T23:59:60Z',
    ])
      expect([good, dateTime(good)]).toEqual([good, true]);
    for (const bad of [
      '2026-02-29T00:00:00Z',
      '2026-11-25',
      '2026-11-25T24:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-11-25T10:00:00',
      'yesterday',
    ])
      expect([bad, dateTime(bad)]).toEqual([bad, false]);

    expect([1, 2 ** 53 - 1].map(FORMATS.int64.validate)).toEqual([true, true]);
    expect([1.5, 2 ** 53 + 2].map(FORMATS.int64.validate)).toEqual([false, false]);
  });
});

describe("GitHub emulator: deployments (a docs pull request's preview)", () => {
  const SHA = 'a'.repeat(40);
  it.each(['', '/api/v3'] as const)(
    'lists deployments newest first, by commit, branch and environment, and each one’s statuses newest first (prefix %j)',
    async (prefix) => {
      const g = await world(prefix);
      g.deploy('acme/app', { sha: 'b'.repeat(40), ref: 'docs/old', statuses: [{ state: 'success' }] });
      const made = g.deploy('acme/app', {
        sha: SHA,
        ref: 'docs/update',
        statuses: [
          { state: 'in_progress', logUrl: 'https://host.example/build/1' },
          {
            state: 'success',
            environmentUrl: 'https://preview.example/pr-7',
            logUrl: 'https://host.example/build/1',
          },
        ],
      });
      const listed = await call(g, 'GET', `/repos/acme/app/deployments?sha=${SHA}&environment=preview`);
      expect(listed.status).toBe(200);
      const deployments = (await listed.json()) as {
        id: number;
        sha: string;
        ref: string;
        statuses_url: string;
      }[];
      expect(deployments).toEqual([
        expect.objectContaining({ id: made.id, sha: SHA, ref: 'docs/update', environment: 'preview' }),
      ]);
      expect(deployments[0]?.statuses_url).toBe(`${g.apiUrl}/repos/acme/app/deployments/${made.id}/statuses`);
      const all = (await (await call(g, 'GET', '/repos/acme/app/deployments')).json()) as { ref: string }[];
      expect(all.map((d) => d.ref)).toEqual(['docs/update', 'docs/old']);
      const none = await call(g, 'GET', '/repos/acme/app/deployments?ref=main');
      expect(await none.json()).toEqual([]);
      const statuses = await call(g, 'GET', `/repos/acme/app/deployments/${made.id}/statuses`);
      expect(statuses.status).toBe(200);
      const listedStatuses = (await statuses.json()) as { state: string; environment_url?: string }[];
      expect(listedStatuses.map((st) => [st.state, st.environment_url])).toEqual([
        ['success', 'https://preview.example/pr-7'],
        ['in_progress', undefined],
      ]);
      expect((await call(g, 'GET', '/repos/acme/app/deployments/999999/statuses')).status).toBe(404);
      expect(g.count('listDeployments')).toBe(3);
      expect(g.count('listDeploymentStatuses')).toBe(2);
      expect(g.violations).toEqual([]);
    },
  );

  it('needs read access: 404 for a token that cannot see the repository', async () => {
    const g = await world();
    g.grant('ghs_other', { login: 'other', read: [], write: [] });
    const made = g.deploy('acme/app', { sha: SHA, ref: 'docs/update', statuses: [{ state: 'success' }] });
    expect((await call(g, 'GET', '/repos/acme/app/deployments', undefined, 'ghs_other')).status).toBe(404);
    expect(
      (await call(g, 'GET', `/repos/acme/app/deployments/${made.id}/statuses`, undefined, 'ghs_other'))
        .status,
    ).toBe(404);
    expect(g.violations).toEqual([]);
  });
});
