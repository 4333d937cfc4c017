// The `workflow_dispatch` inputs the action's recipes declare: how a hand-off names the thread
// whose lane a dispatched run is, and the docs pull request where `/docs` was asked.

/**
 * The `workflow_dispatch` input that names the thread a dispatched run is the lane run of: the
 * recipe declares it, and a report run fills it in.
 */
export const LANE_INPUT = 'docs-agent-thread';

/**
 * The `workflow_dispatch` input that names a thread's docs pull request (its URL) where `/docs` was
 * asked: filled in by the run on the docs PR's comment (in a monorepo) or by the docs repository's
 * forwarding workflow, and handed on to the thread's lane with LANE_INPUT.
 */
export const DOCS_ASK_INPUT = 'docs-agent-docs';
