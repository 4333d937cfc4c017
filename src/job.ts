import { z } from 'zod';

/**
 * The service's `AgentJob`. Only `id` and `status` are needed: the service does not promise
 * which other fields are present, so every other field is optional and unknown fields are kept
 * (they go to the `job` output as the service sent them).
 */
const agentJobSchema = z.looseObject({
  // An id becomes a path segment of the next request: a dot segment or a control character
  // would change which URL we call, so such a reply is "not a job".
  id: z
    .string()
    .min(1)
    .max(200)
    .refine((id) => id !== '.' && id !== '..' && !/[\u0000-\u001f\u007f]/.test(id)),
  // Services add states: any string is accepted and unknown ones count as still running.
  status: z.string().min(1).max(100),
  prLink: z.string().nullish(),
  model: z.string().nullish(),
  source: z.looseObject({ repository: z.string().nullish(), ref: z.string().nullish() }).nullish(),
  createdAt: z.string().nullish(),
  archivedAt: z.string().nullish(),
});

export type AgentJob = z.infer<typeof agentJobSchema>;

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
  const parsed = agentJobSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}
