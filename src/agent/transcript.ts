import type { Kysely } from 'kysely';
import { newId } from '../ids.js';
import type { DB } from '../store/schema.js';
import type { StepEvent } from './loop.js';

const MAX_STORED_RESULT = 4000;

/** Stores every step of a run for the messages endpoint (DESIGN.md §3, "Transcript"). */
export class Transcript {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly jobId: string,
    private readonly runId: string,
  ) {}

  /** Drops what an earlier, interrupted attempt of this run recorded (the prompt stays). */
  async clearEarlierAttempts(): Promise<void> {
    await this.db
      .deleteFrom('messages')
      .where('run_id', '=', this.runId)
      .where('role', '!=', 'user')
      .execute();
  }

  async record(e: StepEvent): Promise<void> {
    const base = { id: newId('msg'), job_id: this.jobId, run_id: this.runId, created_at: Date.now() };
    if (e.kind === 'assistant') {
      if (e.text.trim() === '' && e.usage.totalTokens === 0) return;
      await this.db
        .insertInto('messages')
        .values({
          ...base,
          role: 'assistant',
          content: e.text,
          tool_name: null,
          data: JSON.stringify({ step: e.step, usage: e.usage }),
        })
        .execute();
    } else if (e.kind === 'tool') {
      const content =
        e.result.length > MAX_STORED_RESULT
          ? `${e.result.slice(0, MAX_STORED_RESULT)}… (${e.result.length} chars)`
          : e.result;
      await this.db
        .insertInto('messages')
        .values({
          ...base,
          role: 'tool',
          content,
          tool_name: e.toolName,
          data: JSON.stringify({ step: e.step, args: e.args }),
        })
        .execute();
    } else {
      await this.db
        .insertInto('messages')
        .values({
          ...base,
          role: 'system',
          content: e.text,
          tool_name: null,
          data: JSON.stringify({ step: e.step }),
        })
        .execute();
    }
  }

  /** The run's outcome as the agent's final reply; follow-ups read it as the conversation so far. */
  async final(title: string | null, summary: string): Promise<void> {
    await this.db
      .insertInto('messages')
      .values({
        id: newId('msg'),
        job_id: this.jobId,
        run_id: this.runId,
        role: 'assistant',
        content: summary,
        tool_name: null,
        data: JSON.stringify({ final: true, title }),
        created_at: Date.now(),
      })
      .execute();
  }
}
