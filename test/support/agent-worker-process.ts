// `redline worker` with the real agent, except that the first time a pull request is about to be
// opened the process kills itself (SIGKILL), after the branch was pushed: the crash the
// "effects once" test needs. The flag file records that the crash happened.
import { existsSync, writeFileSync } from 'node:fs';
import { AgentExecutor } from '../../src/agent/agent-executor.js';
import { stopOnSignals } from '../../src/cli/serve.js';
import { loadConfig } from '../../src/config.js';
import { Workspaces } from '../../src/git/workspace.js';
import { LocalHost } from '../../src/hosts/local.js';
import { createLogger } from '../../src/log.js';
import { openServices, startRuntime } from '../../src/runtime.js';

const flag = process.env.REDLINE_TEST_CRASH_FLAG!;
const config = loadConfig();
const log = createLogger(config.logLevel);
const { database } = await openServices(config, log);
const local = new LocalHost(database.db, config.publicUrl);
const crashing = Object.assign(Object.create(local) as LocalHost, {
  openPullRequest: (...args: Parameters<LocalHost['openPullRequest']>) => {
    if (!existsSync(flag)) {
      writeFileSync(flag, 'crashed before opening the pull request\n');
      process.kill(process.pid, 'SIGKILL');
    }
    return local.openPullRequest(...args);
  },
});
const runtime = await startRuntime({
  config,
  log,
  http: false,
  executor: new AgentExecutor({
    db: database.db,
    workspaces: new Workspaces(config.dataDir, { name: 'Redline', email: 'redline@localhost' }),
    hosts: { local: crashing },
    providers: config.providers,
    settings: config.agent,
    log,
  }),
});
stopOnSignals(runtime);
