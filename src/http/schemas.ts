import { z } from 'zod';
import { JOB_STATUSES } from '../jobs/transitions.js';

// The schemas requests are validated with; /v2/openapi.json is generated from these same objects.

const prompt = z
  .string({ error: 'prompt must be a string' })
  .refine((s) => s.trim().length > 0, 'prompt must not be empty or only white space')
  .meta({ description: 'What the agent should do, in plain language.' });

export const createJobBody = z
  .strictObject({
    prompt,
    model: z
      .string({ error: 'model must be a string' })
      .optional()
      .meta({ description: 'A provider:model the project allows; defaults to the project model.' }),
  })
  .meta({ id: 'CreateJobRequest' });

export const messageBody = z.strictObject({ prompt }).meta({ id: 'MessageRequest' });

export const projectParams = z.strictObject({ projectId: z.string() });
export const jobParams = z.strictObject({ projectId: z.string(), id: z.string() });

export const listQuery = z.strictObject({
  status: z.enum(JOB_STATUSES as [string, ...string[]]).optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(100, 'limit must be at most 100')
    .default(20),
  cursor: z.string().optional().meta({ description: 'nextCursor from the previous page.' }),
});

export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: 'Same key and body within 24 h returns the original response.' }),
});

export const jobObject = z
  .object({
    id: z.string(),
    status: z.enum(JOB_STATUSES as [string, ...string[]]),
    source: z.object({ repository: z.string(), ref: z.string() }),
    model: z.string(),
    prLink: z.string().nullable(),
    createdAt: z.string(),
    archivedAt: z.string().nullable(),
    updatedAt: z.string(),
    summary: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    branch: z.string().nullable(),
    usage: z
      .object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() })
      .nullable(),
    checks: z
      .array(z.object({ file: z.string(), line: z.number().optional(), message: z.string() }))
      .nullable()
      .meta({
        description: 'Problems the checks left in the change (the PR is then a draft); [] when clean.',
      }),
  })
  .meta({ id: 'Job' });

export const jobList = z
  .object({ jobs: z.array(jobObject), nextCursor: z.string().nullable() })
  .meta({ id: 'JobList' });

export const conversation = z
  .object({
    messages: z.array(
      z.object({
        id: z.string(),
        runId: z.string(),
        role: z.enum(['user', 'assistant', 'tool', 'system']),
        content: z.string(),
        toolName: z.string().nullable(),
        data: z.record(z.string(), z.unknown()).nullable(),
        createdAt: z.string(),
      }),
    ),
  })
  .meta({ id: 'Conversation' });

export const errorBody = z
  .object({
    error: z.string(),
    code: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'Error' });

export const health = z.object({ status: z.string() });
