import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { MODEL_NAME } from '../config.js';
import { RedlineError } from '../errors.js';
import { checkBranchName } from '../git/git.js';
import { newId } from '../ids.js';
import type { DB, ProjectTable } from '../store/schema.js';

export const HOSTS = ['local', 'github', 'gitlab', 'gitea'] as const;
export type HostKind = (typeof HOSTS)[number];

export interface Project {
  id: string;
  name: string;
  repository: string;
  ref: string;
  host: HostKind;
  docsRoot: string;
  model: string | null;
  allowedModels: string[];
  createdAt: string;
}

const modelName = z.string().regex(MODEL_NAME, 'must look like provider:model, e.g. openai:gpt-4.1');

// The subset of `git check-ref-format` rules that can be checked without git: enough to refuse
// anything that could be read as an option or a path trick before it reaches a git command.
const refName = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (r) =>
      !r.startsWith('-') &&
      !r.startsWith('/') &&
      !r.endsWith('/') &&
      !r.endsWith('.') &&
      !r.endsWith('.lock') &&
      !r.includes('..') &&
      !r.includes('@{') &&
      !r.includes('//') &&
      // eslint-disable-next-line no-control-regex -- control characters are exactly what git refuses
      !/[\x00-\x20\x7f~^:?*[\\]/.test(r),
    'is not a valid git ref name',
  );

export const projectInput = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  repository: z.string().trim().min(1, 'must not be empty').max(2000),
  ref: refName.default('main'),
  host: z.enum(HOSTS).default('local'),
  docsRoot: z
    .string()
    .default('.')
    .refine((d) => !path.isAbsolute(d) && !path.normalize(d).split(path.sep).includes('..'), {
      message: 'must be a relative path inside the repository',
    }),
  model: modelName.nullable().default(null),
  allowedModels: z.array(modelName).default([]),
});
export type ProjectInput = z.input<typeof projectInput>;

/** Local repositories are stored as absolute paths so the server finds them from any directory. */
function normalizeRepository(host: HostKind, repository: string): string {
  if (host === 'local') {
    const p = repository.startsWith('file://') ? fileURLToPath(repository) : path.resolve(repository);
    if (!existsSync(p)) {
      throw new RedlineError('invalid_request', `repository ${p} does not exist on this machine`, {
        field: 'repository',
      });
    }
    return p;
  }
  let url: URL;
  try {
    url = new URL(repository);
  } catch {
    throw new RedlineError('invalid_request', `repository must be an https URL for host ${host}`, {
      field: 'repository',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new RedlineError('invalid_request', `repository must be an https URL for host ${host}`, {
      field: 'repository',
    });
  }
  if (url.username || url.password) {
    // A credential in a stored URL would leak into every job object; tokens are configured separately.
    throw new RedlineError('invalid_request', 'repository URL must not contain credentials', {
      field: 'repository',
    });
  }
  return url.toString().replace(/\/$/, '');
}

export function toProject(row: ProjectTable): Project {
  return {
    id: row.id,
    name: row.name,
    repository: row.repository,
    ref: row.ref,
    host: row.host as HostKind,
    docsRoot: row.docs_root,
    model: row.model,
    allowedModels: JSON.parse(row.allowed_models) as string[],
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export class ProjectStore {
  constructor(private readonly db: Kysely<DB>) {}

  async create(input: ProjectInput): Promise<Project> {
    const parsed = projectInput.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.join('.');
      throw new RedlineError('invalid_request', `${field} ${issue.message}`, { field });
    }
    const p = parsed.data;
    try {
      await checkBranchName(p.ref);
    } catch {
      throw new RedlineError('invalid_request', `ref "${p.ref}" is not a valid git branch name`, {
        field: 'ref',
      });
    }
    const row: ProjectTable = {
      id: newId('prj'),
      name: p.name,
      repository: normalizeRepository(p.host, p.repository),
      ref: p.ref,
      host: p.host,
      docs_root: path.normalize(p.docsRoot),
      model: p.model,
      allowed_models: JSON.stringify(p.allowedModels),
      created_at: Date.now(),
    };
    await this.db.insertInto('projects').values(row).execute();
    return toProject(row);
  }

  async get(id: string): Promise<Project | null> {
    const row = await this.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toProject(row) : null;
  }

  async list(): Promise<Project[]> {
    const rows = await this.db.selectFrom('projects').selectAll().orderBy('id').execute();
    return rows.map(toProject);
  }
}
