// The environment every test file runs in: jest's own for Node, and at the end of each file a
// check that it left nothing running that was not running when it started (a server not closed, a
// socket, a timer, a child process, a file read in flight). jest's workers run file after file, so
// what one file leaves keeps its worker from exiting ("a worker process has failed to exit
// gracefully") and runs on into the next file's tests. Closing is asynchronous (a socket closes a
// moment after its server), so the check waits for what is closing before it fails the file:
// generously (up to 30 s, for a loaded machine), and not at all when nothing is left.
import { TestEnvironment } from 'jest-environment-node';
import { setTimeout as sleep } from 'node:timers/promises';

const SETTLE_MS = 30_000;

/** How many resources of each kind are open in this process (Timeout, TCPSocketWrap …). */
function resources() {
  const counts = new Map();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

export default class CheckedEnvironment extends TestEnvironment {
  async setup() {
    await super.setup();
    // The worker's own stdout and stderr are made on first use (a pipe to jest, which --json keeps
    // from being used before a test prints): made now, they are counted as the worker's, not the file's.
    void process.stdout;
    void process.stderr;
    this.before = resources();
  }

  async teardown() {
    // Each kind above its count at the start (the check's own sleep has ended when it looks).
    const left = () =>
      [...resources()]
        .map(([kind, n]) => [kind, n - (this.before?.get(kind) ?? 0)])
        .filter(([, more]) => more > 0)
        .map(([kind, more]) => `${more} ${kind}`);
    for (let waited = 0; left().length > 0 && waited < SETTLE_MS; waited += 50) await sleep(50);
    const still = left();
    await super.teardown();
    if (still.length > 0) {
      throw new Error(
        `This test file left ${still.join(', ')} running after its last test: close every server, socket, timer and child process it starts.`,
      );
    }
  }
}
