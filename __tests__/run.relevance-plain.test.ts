// Jobs only where they matter, played with run() in this process against both emulators: `paths`
// skips a change that touches nothing it names (nothing sent, `skipped`, and a success status so a
// required check stays green) and lets a relevant one through, negations applied as GitHub's
// filters apply them, on a thread too; `triggerLabel` asks for docs from a writer and is taken off
// again; the docs PR's number and repository are outputs; `autoMerge` enables GitHub's auto-merge
// on it once, and a refusal is one warning; bad inputs send nothing.
import { describe, expect, it } from '@jest/globals';
import {
  emulators,
  errors,
  gitHubEmulators,
  inputsFor,
  notices,
  runHere as play,
  warnings,
} from '../__fixtures__/e2e.js';
import {
  APP,
  changedFile,
  DOCS,
  DOCS_TOKEN,
  gitHubEnv,
  pushTo,
  pushEvent,
  sha,
  world,
} from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();
const PATHS = 'src/**\n!src/**/*.test.ts\ndocs-config.yml';

describe('jobs only where they matter', () => {
  it('paths: an irrelevant push sends nothing and leaves a success status; a relevant one creates a job; a negation excludes; a thread push of excluded files sends no follow-up', async () => {
    const gh = await github();
    const { docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const push = (after: string, before: string, files: string[], runId: string) => {
      gh.comparison(APP, `${before}...${after}`, { commits: [], files: files.map(changedFile) });
      return play({
        inputs: inputsFor(service, { paths: PATHS, status: 'true', thread: 'true', docsToken: DOCS_TOKEN }),
        env: { ...gitHubEnv(gh), GITHUB_RUN_ID: runId },
        event: pushEvent(after, { before }),
      });
    };

    const readme = await push(sha(2), sha(1), ['README.md', 'test/app.test.ts'], '11');
    expect(readme.code).toBe(0);
    expect(service.requests).toEqual([]);
    expect(readme.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(notices(readme)).toEqual(['Skipped: 2 files changed, none under paths.']);
    expect(gh.statuses(APP, sha(2))[0]).toMatchObject({
      state: 'success',
      description: 'No docs-relevant change · run 11',
    });

    const tests = await push(sha(3), sha(2), ['src/cli/app.test.ts'], '12');
    expect(tests.outputs.status).toBe('skipped');
    expect(service.requests).toEqual([]);

    const code = await push(sha(4), sha(3), ['src/cli/app.test.ts', 'src/cli/app.ts'], '13');
    expect(code.outputs.mode).toBe('created');
    expect(service.count('create')).toBe(1);

    // The branch's job is followed up only for a relevant push; the skip's status keeps naming it.
    const onlyTests = await push(sha(5), sha(4), ['src/cli/more.test.ts'], '14');
    expect(onlyTests.outputs.status).toBe('skipped');
    expect(service.count('message')).toBe(0);
    expect(gh.statuses(APP, sha(5))[0]?.description).toBe(
      `No docs-relevant change: job ${code.outputs.jobId} · run 14`,
    );
    const config = await push(sha(6), sha(5), ['docs-config.yml'], '15');
    expect(config.outputs).toMatchObject({ mode: 'followed-up', jobId: code.outputs.jobId });
  });

  it('triggerLabel: a writer labelling a pull request gets one job and the label taken off; another label sends nothing', async () => {
    const gh = await github();
    const { pr, docsPr, docsLink } = world(gh);
    const service = await emulator({ final: { status: 'completed', prLink: docsLink } });
    const labelled = (name: string, by = 'octocat') => {
      pr.labels.push(name);
      const event = pushTo(pr, sha(7), 'labeled');
      return play({
        inputs: inputsFor(service, { triggerLabel: 'docs', autoMerge: 'squash', docsToken: DOCS_TOKEN }),
        env: gitHubEnv(gh),
        event: {
          ...event,
          payload: { ...event.payload, label: { name }, sender: { login: by, type: 'User' } },
        },
      });
    };

    const other = await labelled('bug');
    expect(other.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(service.requests).toEqual([]);
    expect(pr.labels).toEqual(['bug']);

    // Applying a label needs only triage: a triager's label asks for nothing, and is taken off.
    gh.collaborator(APP, 'triager', 'triage');
    const triaged = await labelled('docs', 'triager');
    expect(triaged.outputs).toEqual({ status: 'skipped', mode: 'skipped', uses: '0' });
    expect(notices(triaged)[0]).toContain('triager may not start a docs job here');
    expect(service.requests).toEqual([]);
    expect(pr.labels).toEqual(['bug']);

    const asked = await labelled('Docs');
    expect(asked.code).toBe(0);
    expect(asked.outputs).toMatchObject({
      mode: 'created',
      prLink: docsLink,
      prNumber: String(docsPr.number),
      prRepository: DOCS,
    });
    expect(service.count('create')).toBe(1);
    expect(pr.labels).toEqual(['bug']);
    expect(gh.count('getCollaboratorPermission')).toBeGreaterThanOrEqual(1);
    // Answered on the pull request, as a /docs request is.
    expect(pr.comments.at(-1)?.body).toContain('✅ **Completed**');
    // Auto-merge, once, with the docs token.
    expect(docsPr.autoMerge).toEqual({ method: 'SQUASH', by: 'docs-app[bot]' });
    expect(gh.count('enableAutoMerge')).toBe(1);
    expect(warnings(asked)).toEqual([]);

    gh.allowAutoMerge(DOCS, false);
    docsPr.autoMerge = undefined;
    const refused = await labelled('docs');
    expect(refused.code).toBe(0);
    expect(warnings(refused)).toEqual([
      expect.stringMatching(
        /^Could not enable auto-merge on acme\/docs#\d+ \("Pull request Auto merge is not allowed for this repository"\): turn on "Allow auto-merge"/,
      ),
    ]);
  });

  it('a bad autoMerge or an unreadable paths pattern is a clear error, with nothing sent', async () => {
    const gh = await github();
    world(gh);
    const service = await emulator();
    for (const [inputs, said] of [
      [{ autoMerge: 'fast-forward' }, 'Input "autoMerge" must be merge, squash or rebase'],
      [{ paths: 'src/**\nsrc/[a-' }, 'Input "paths" line 2'],
    ] as const) {
      const result = await play({
        inputs: inputsFor(service, inputs),
        env: gitHubEnv(gh),
        event: pushEvent(sha(8)),
      });
      expect(result.code).toBe(1);
      expect(errors(result)).toEqual([expect.stringContaining(said)]);
    }
    expect(service.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });
});
