import type { Command } from 'commander';
import { startRuntime } from '../runtime.js';
import { configOrExit } from './common.js';
import { stopOnSignals } from './serve.js';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run workers only (no HTTP); any number can share one Postgres database')
    .action(async () => {
      const config = configOrExit();
      if (!config.publicUrlSet) {
        // A worker has no address of its own; links it writes must point at the API servers.
        console.error(
          'redline: REDLINE_PUBLIC_URL must be set for `redline worker`: it is the address of your API servers, and pull request links (prLink) are made from it.',
        );
        process.exit(2);
      }
      const runtime = await startRuntime({ config, http: false });
      stopOnSignals(runtime);
    });
}
