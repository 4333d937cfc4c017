// A step that waits is never silent: with run() in this process on a virtual clock, a job that
// stays active for over two minutes gets a progress line from the timer beside the polls, naming
// the job, and one line for its end. (The rule itself is tested in wait.test.ts; here it is the
// whole step's log, as the runner would show it, without waiting two real minutes.)
import { expect, it } from '@jest/globals';
import { VirtualClock } from '../__fixtures__/clock.js';
import { emulators, inputsFor, runHere } from '../__fixtures__/e2e.js';

const emulator = emulators({ activePolls: 1 });

it('a job active for over two minutes says so while it waits, and its end once', async () => {
  const service = await emulator();
  const clock = new VirtualClock();
  // Polls about 70 s apart (±10 %): the first answers active, the second completed, after the mark.
  const result = await runHere(
    { inputs: inputsFor(service, { pollInterval: '70s', timeout: '5m' }) },
    { clock },
  );
  expect(result.code).toBe(0);
  const [id] = [...service.jobs.keys()];
  expect(result.stdout).toMatch(
    new RegExp(`Agent job ${id} is still active after 2m; checking again in \\d+s\\.`),
  );
  const ends = result.stdout
    .split('\n')
    .filter((line) => line.includes('completed') && !line.startsWith('::'));
  expect(ends).toEqual([expect.stringMatching(new RegExp(`^Agent job ${id} completed: https://`))]);
  // The two minutes passed on the clock, not in real time.
  expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThan(120_000);
});
