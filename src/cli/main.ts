import { Command } from 'commander';
import { registerKey } from './key.js';
import { registerMigrate } from './migrate.js';
import { registerPr } from './pr.js';
import { registerProject } from './project.js';
import { registerServe } from './serve.js';
import { registerWorker } from './worker.js';

const program = new Command('redline')
  .description('Redline: a self-hosted agent job service for documentation')
  .showHelpAfterError();

registerServe(program);
registerWorker(program);
registerMigrate(program);
registerProject(program);
registerKey(program);
registerPr(program);

program.parseAsync(process.argv).catch((err: Error) => {
  console.error(`redline: ${err.message}`);
  process.exit(1);
});
