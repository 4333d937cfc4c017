// The GitHub emulator's contract checks must be able to fail: requests and replies that GitHub's
// published description does not allow are recorded as violations.
import { afterEach, describe, expect, it } from '@jest/globals';
import { startGitHubEmulator, type GitHubEmulator } from '../src/emulator/github.js';

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
