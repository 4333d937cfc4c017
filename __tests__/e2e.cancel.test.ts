// Cancellation as the runner does it (docs/design.md §3.5): SIGINT or SIGTERM while waiting, during
// the create, while waiting on a job by id, and while `paths` is matched against a long list,
// through the bundle under Node 24 against the emulators. What the run waits for never comes (a
// job still at work, a request the emulator holds unanswered), so an exit with its outputs shows
// that the signal, not the work, ended it (a test never times it: a loaded machine would answer).
import { describe, expect, it } from '@jest/globals';
import type { Emulator } from '../emulators/server.js';
import {
  emulators,
  errors,
  expectFailure,
  gitHubEmulators,
  inputsFor,
  runAndSignal,
  runAndSignalAt,
} from '../__fixtures__/e2e.js';
import { gitHubEnv, pullRequestAt, world } from '../__fixtures__/github-world.js';

const emulator = emulators({ activePolls: 0 });
const github = gitHubEmulators();

describe('cancellation', () => {
  /** Signals the action as the runner does once `ready` holds. */
  function cancelWhen(
    service: Emulator,
    ready: () => boolean,
    signal: NodeJS.Signals,
    overrides: Record<string, string> = {},
  ) {
    return runAndSignal({ inputs: inputsFor(service, { timeout: '5m', ...overrides }) }, ready, signal);
  }

  it.each<NodeJS.Signals>(['SIGINT', 'SIGTERM'])(
    'on %s while waiting: outputs, summary, the job goes on, out before the runner escalates',
    async (signal) => {
      const service = await emulator({ activePolls: 1000 });
      const { result } = await cancelWhen(service, () => service.count('get') >= 1, signal);
      const [id] = [...service.jobs.keys()];
      expect(result.signal).toBeNull();
      expectFailure(
        result,
        `The step was cancelled (${signal}) while waiting; agent job ${id} goes on in the service (last status: active).`,
      );
      expect(result.outputs).toMatchObject({ jobId: id, status: 'active', prLink: '' });
      expect(JSON.parse(result.outputs.job ?? '')).toMatchObject({ id, status: 'active' });
      expect(result.summary).toContain(`<code>${id}</code>`);
      expect(result.summary).toContain('cancelled');
    },
  );

  it('while the create is in flight: says a job may have been created', async () => {
    const service = await emulator();
    // The create is never answered: the signal does not wait for it.
    service.script('create', { hold: true, acted: true });
    const { result } = await cancelWhen(service, () => service.count('create') >= 1, 'SIGINT');
    expect(result.signal).toBeNull();
    expectFailure(
      result,
      'The step was cancelled (SIGINT) before the service confirmed the job; a job may have been created in project proj_docs',
    );
    // Which way the run went, and that no job is known to have started.
    expect(result.outputs).toEqual({ mode: 'created', status: 'not-started', uses: '0' });
    expect(errors(result)).toHaveLength(1);
  });

  it('while waiting on a job by id that was not read yet: names it', async () => {
    const service = await emulator();
    service.script('get', { hold: true });
    const { result } = await cancelWhen(service, () => service.count('get') >= 1, 'SIGTERM', {
      jobId: 'job_elsewhere',
      prompt: '',
    });
    expectFailure(
      result,
      'The step was cancelled (SIGTERM) while waiting; agent job job_elsewhere goes on in the service.',
    );
    // No job was seen: `status` says so, never empty.
    expect(result.outputs).toEqual({
      jobId: 'job_elsewhere',
      mode: 'given',
      status: 'not-started',
      uses: '0',
    });
  });

  it('while paths is matched against 3,000 long names: answered within the bound, outputs written, nothing sent', async () => {
    const service = await emulator();
    const gh = await github();
    const { pr } = world(gh);
    pr.files.push(
      ...Array.from({ length: 3000 }, (_, i) => ({
        filename: `${'a'.repeat(4000)}${i}`,
        status: 'modified',
        additions: 1,
        deletions: 0,
      })),
    );
    // Patterns that keep matching busy up to its bound of work, and match nothing.
    const paths = Array.from({ length: 100 }, () => `**${'a'.repeat(220)}b*`).join('\n');
    const { result } = await runAndSignalAt(
      {
        inputs: inputsFor(service, { paths }),
        env: gitHubEnv(gh),
        event: pullRequestAt(pr.number, 'c0ffee0000000000000000000000000000000001'),
      },
      // Sent as the last page is written, so it is pending before the run has read the page: the
      // run meets it while it reads or matches the names (matching gives way to it), never after
      // the job was sent, however slow this machine is.
      (send) => gh.afterAnswer('listPullFiles', 30, send),
      'SIGINT',
    );
    expectFailure(result, 'The step was cancelled (SIGINT) before anything was sent to the service.');
    expect(result.outputs.status).toBe('not-started');
    expect(service.requests).toEqual([]);
  });
});
