import * as z from 'zod/mini';

/**
 * The service's `AgentJob`. Only `id` and `status` are needed: the service does not promise
 * which other fields are present, so every other field is optional and unknown fields are kept
 * (they go to the `job` output as the service sent them).
 */
function jobSchema() {
  return z.looseObject({
    // An id the next request could not safely name makes the reply "not a job".
    id: z.string().check(z.refine(isJobId)),
    // Services add states: any string is accepted and unknown ones count as still running.
    status: z.string().check(z.minLength(1), z.maxLength(100)),
    prLink: z.nullish(z.string()),
    model: z.nullish(z.string()),
    source: z.nullish(z.looseObject({ repository: z.nullish(z.string()), ref: z.nullish(z.string()) })),
    createdAt: z.nullish(z.string()),
    archivedAt: z.nullish(z.string()),
  });
}

/**
 * An id becomes a path segment of the next request: a dot segment or a control character would
 * change which URL is called. The service's ids obey this, and so must any id read back from
 * GitHub (a thread's note, a commit status), where anyone could have written one.
 */
export function isJobId(id: string): boolean {
  return id.length >= 1 && id.length <= 200 && id !== '.' && id !== '..' && !/[\u0000-\u001f\u007f]/.test(id);
}

/** Made on the first reply, not at start-up: nothing before the first request needs it. */
let agentJobSchema: ReturnType<typeof jobSchema> | undefined;

export type AgentJob = z.infer<ReturnType<typeof jobSchema>>;

const KNOWN_STATUSES = ['active', 'completed', 'failed', 'archived'] as const;
export type TerminalStatus = 'completed' | 'failed' | 'archived';

export function isTerminal(status: string): status is TerminalStatus {
  return status === 'completed' || status === 'failed' || status === 'archived';
}

export function isKnownStatus(status: string): boolean {
  return (KNOWN_STATUSES as readonly string[]).includes(status);
}

/** Parses a reply body; `undefined` when it is not a job. */
export function parseJob(body: unknown): AgentJob | undefined {
  const parsed = (agentJobSchema ??= jobSchema()).safeParse(body);
  return parsed.success ? parsed.data : undefined;
}
