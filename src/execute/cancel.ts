/**
 * Cancellation as the runner does it (docs/design.md §3.5): on a cancelled workflow or a step's
 * `timeout-minutes`, SIGINT, then SIGTERM 7.5 s later, then a kill. Either signal aborts the work
 * in hand, so `run()` can still set the outputs and write the summary before it exits.
 */
export class Cancelled extends Error {
  override name = 'Cancelled';
  constructor(readonly signalName: NodeJS.Signals) {
    super(`cancelled by ${signalName}`);
  }
}

/** docs/design.md §3.5: out within 2 s of the signal, even if writing the outputs were to hang. */
const EXIT_WITHIN_MS = 1800;

export interface Cancellation {
  signal: AbortSignal;
  dispose(): void;
}

export function listenForCancellation(): Cancellation {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    controller.abort(new Cancelled(name));
    setTimeout(() => process.exit(process.exitCode ?? 1), EXIT_WITHIN_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
