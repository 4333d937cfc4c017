// What a run starts from, read once before anything is sent: the inputs for this run's event, the
// request the event makes, and the features (which GitHub work the run does).
import { eventNeeds, featuresOf, type Features } from './features.js';
import { InputError, readInputs, type Inputs, type ReadInput } from './inputs.js';
import { type RunEvent } from '../core/event.js';
import { DOCS_ASK_INPUT, LANE_INPUT } from '../core/dispatch-inputs.js';
import { quote } from '../core/untrusted.js';
import { isDocsPullPage } from '../core/pull-request.js';
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
  const inputs = readInputs(read, workspace, eventNeeds(context.event));
  if (inputs.thread) checkLane(context.event);
  return setupFor(inputs, context);
}

/**
 * A dispatch that names a thread (`docs-agent-thread`, filled in by a report run) names it by
 * number, and a docs pull request (`docs-agent-docs`) by its page's URL; anything else is a
 * bad input, before any request.
 */
function checkLane(event: RunEvent): void {
  if (event.kind !== 'dispatch') return;
  if (event.lane !== undefined && !/^[1-9][0-9]{0,9}$/.test(event.lane))
    throw new InputError(
      `The workflow_dispatch input "${LANE_INPUT}" is ${quote(event.lane, 40)}: expected the number of the pull request or issue whose thread this run is (a report run fills it in).`,
    );
  if (event.docsAsk !== undefined && !isDocsPullPage(event.docsAsk))
    throw new InputError(
      `The workflow_dispatch input "${DOCS_ASK_INPUT}" is ${quote(event.docsAsk, 80)}: expected the URL of the docs pull request where /docs was asked (https://github.com/<owner>/<repo>/pull/<number>; the docs repository's workflow fills it in).`,
    );
}

/** The setup of valid inputs on an event: a report run's stands in for a thread's run with it. */
export function setupFor(given: Inputs, context: RunContext): Setup {
  const request = readRequest(given.trigger, context.event, given.triggerLabel);
  const features = featuresOf(given, context, request);
  const inputs = features.comment === given.comment ? given : { ...given, comment: features.comment };
  return { inputs, context, request, features };
}
