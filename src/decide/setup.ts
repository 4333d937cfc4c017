// What a run starts from, read once before anything is sent: the inputs for this run's event, the
// request the event makes, and the features (which GitHub work the run does).
import { eventNeeds, featuresOf, type Features } from './features.js';
import { readInputs, type Inputs, type ReadInput } from './inputs.js';
import type { RunContext } from '../core/run-context.js';
import { readRequest, type Request } from './trigger.js';

/** What the step starts from: the inputs it acts on, the run, the request, and the features. */
export interface Setup {
  /** The inputs as the step acts on them: a request turns the comment on. */
  inputs: Inputs;
  context: RunContext;
  request: Request;
  features: Features;
}

/** Reads the inputs for this run's event and decides, once, what the run does on GitHub. */
export function readSetup(read: ReadInput, context: RunContext, workspace?: string): Setup {
  return setupFor(readInputs(read, workspace, eventNeeds(context.event)), context);
}

/** The setup of valid inputs on an event: a report run's stands in for a thread's run with it. */
export function setupFor(given: Inputs, context: RunContext): Setup {
  const request = readRequest(given.trigger, context.event, given.triggerLabel);
  const features = featuresOf(given, context, request);
  const inputs = features.comment === given.comment ? given : { ...given, comment: features.comment };
  return { inputs, context, request, features };
}
