// The end of temp-setup.js: the run's temporary folder goes, with all that was made in it.
import { rmSync } from 'node:fs';

export default function teardown() {
  const dir = process.env.AGENT_JOB_ACTION_TEST_TMPDIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
}
