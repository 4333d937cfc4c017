// One temporary folder a jest run, removed when the run ends: every test, fixture and child
// process makes its own folders inside it (os.tmpdir() reads TMPDIR, and the workers and the
// action's child processes inherit it), so a run leaves nothing behind in the machine's temporary
// directory, whatever a test that failed halfway did not clean up.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'agent-job-action-tests-'));
  process.env.AGENT_JOB_ACTION_TEST_TMPDIR = dir;
  process.env.TMPDIR = dir;
}
