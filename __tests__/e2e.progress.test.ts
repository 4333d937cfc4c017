// A step that waits is never silent: through the bundle under Node 24, a job that stays active for
// over two minutes gets a progress line from the timer beside the polls, naming the job, and one
// line for its end. (The rule itself is tested on a virtual clock in wait.test.ts; this is the one
// real-time run, in a file of its own so it waits beside the others.)
import { expect, it } from '@jest/globals';
import { emulators, inputsFor, run } from '../__fixtures__/e2e.js';

const emulator = emulators({ activePolls: 1 });

it('a job active for over two minutes says so while it waits, and its end once', async () => {
  const service = await emulator();
  // Polls about 70 s apart (±10 %): the first answers active, the second completed, after the mark.
  const result = await run({
    inputs: inputsFor(service, { pollInterval: '70s', timeout: '5m' }),
    killAfterMs: 240_000,
  });
  expect(result.code).toBe(0);
  const [id] = [...service.jobs.keys()];
  expect(result.stdout).toMatch(
    new RegExp(`Agent job ${id} is still active after 2m; checking again in \\d+s\\.`),
  );
  const ends = result.stdout
    .split('\n')
    .filter((line) => line.includes('completed') && !line.startsWith('::'));
  expect(ends).toEqual([expect.stringMatching(new RegExp(`^Agent job ${id} completed: https://`))]);
}, 300_000);
