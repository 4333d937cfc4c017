// A `redline worker` whose executor is a scripted stand-in for the agent: it appends
// "start <run> <pid>" and "done <run> <pid>" to REDLINE_TEST_EXEC_LOG and takes
// REDLINE_TEST_EXEC_MS per run. The reliability tests count executions from that file.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopOnSignals } from '../../src/cli/serve.js';
import { loadConfig } from '../../src/config.js';
import { startRuntime } from '../../src/runtime.js';

const logFile = process.env.REDLINE_TEST_EXEC_LOG!;
const ms = Number(process.env.REDLINE_TEST_EXEC_MS ?? '0');

const runtime = await startRuntime({
  config: loadConfig(),
  http: false,
  executor: {
    async execute({ run, signal }) {
      appendFileSync(logFile, `start ${run.id} ${process.pid}\n`);
      if (ms > 0) await sleep(ms, undefined, { signal });
      appendFileSync(logFile, `done ${run.id} ${process.pid}\n`);
      return { summary: `executed by ${process.pid}`, prLink: null };
    },
  },
});
stopOnSignals(runtime);
