// GitHub's published OpenAPI description is the GitHub emulator's contract: every request it
// receives and every reply it sends is validated against the operation's parameters, request body
// and response schema, with ajv. The operations it serves are cut, with every component they refer
// to, from the @octokit/openapi package into openapi/github/ (scripts/vendor-github-openapi.mjs;
// MIT, licence beside them): the package is 385 MB installed, the cut 0.4 MB. JSON imports, so
// ncc inlines them into the demo's bundle.
import { Ajv, type ValidateFunction } from 'ajv';
import githubCom from './openapi/github/api.github.com.json' with { type: 'json' };
import ghes from './openapi/github/ghes-3.19.json' with { type: 'json' };

/** Which published description: github.com (and GHE.com), or GitHub Enterprise Server. */
export type GitHubSpec = 'api.github.com' | 'ghes-3.19';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: unknown;
}

type Node = Record<string, unknown>;

/**
 * Statuses GitHub may send on any operation, whether or not the description lists them: the
 * description lists, per operation, only some of the errors GitHub's REST documentation says any
 * request can get — 401 for a token it does not know, 403 for one without the permission, 404 for
 * what a token cannot see (never 403, which would say it exists), 422 for a request it refuses, and
 * 500, 502 and 503 from its own side. Their body must still be GitHub's usual error.
 */
const ANY_OPERATION = new Set([401, 403, 404, 422, 500, 502, 503]);

export interface GitHubContract {
  /** Problems with a request to `template` (a path of the description, e.g. `/repos/{owner}/{repo}`). */
  checkRequest(method: string, template: string, query: URLSearchParams, body: unknown): string[];
  /** Problems with a reply. */
  checkResponse(method: string, template: string, status: number, body: unknown): string[];
  /** An example object of a schema, from the description's own examples, to build replies from. */
  example(name: string): Node;
}

const contracts = new Map<GitHubSpec, GitHubContract>();

export function gitHubContract(spec: GitHubSpec = 'api.github.com'): GitHubContract {
  let contract = contracts.get(spec);
  if (!contract) {
    contract = load(spec);
    contracts.set(spec, contract);
  }
  return contract;
}

function load(spec: GitHubSpec): GitHubContract {
  // The conversion copies as it goes: the imported objects stay as they are.
  const document = nullableWithoutType(spec === 'ghes-3.19' ? ghes : githubCom) as Node;
  // OpenAPI 3.0: `nullable` is one of ajv's own keywords; `x-` extensions are documentation here.
  // `format`s are checked: a URL or a time the real API could not send proves nothing.
  const ajv = new Ajv({ strict: false, validateFormats: true, allErrors: false });
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format);
  ajv.addSchema(document, 'gh');
  const compiled = new Map<string, ValidateFunction>();

  const at = (pointer: string): unknown =>
    pointer
      .split('/')
      .slice(1)
      .reduce<unknown>(
        (node, part) => (node as Node | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')],
        document,
      );
  // Follows a `$ref` of a parameter, body or response object to the pointer of what it names.
  const follow = (pointer: string): string => {
    const node = at(pointer) as Node | undefined;
    return typeof node?.$ref === 'string' ? follow(node.$ref.slice(1)) : pointer;
  };
  const escape = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
  const validate = (pointer: string, value: unknown, where: string): string[] => {
    let check = compiled.get(pointer);
    if (!check) {
      check = ajv.compile({ $ref: `gh#${pointer}` });
      compiled.set(pointer, check);
    }
    if (check(value)) return [];
    return (check.errors ?? []).map((e) => `${where}${e.instancePath} ${e.message ?? 'is invalid'}`);
  };
  const operation = (method: string, template: string) => {
    const pointer = `/paths/${escape(template)}/${method.toLowerCase()}`;
    return at(pointer) ? pointer : undefined;
  };

  return {
    checkRequest(method, template, query, body) {
      const op = operation(method, template);
      if (!op) return [`${method} ${template} is not an operation of GitHub's API`];
      const problems: string[] = [];
      const parameters = ((at(`${op}/parameters`) as unknown[] | undefined) ?? []).map((_, i) =>
        follow(`${op}/parameters/${i}`),
      );
      const declared = new Map(parameters.map((p) => [(at(p) as Parameter).name, p]));
      for (const [name, value] of query) {
        const pointer = declared.get(name);
        if (!pointer || (at(pointer) as Parameter).in !== 'query') {
          problems.push(`${method} ${template}: query parameter ${name} is not declared`);
          continue;
        }
        const schema = at(`${pointer}/schema`) as { type?: string } | undefined;
        const typed = schema?.type === 'integer' || schema?.type === 'number' ? Number(value) : value;
        problems.push(...validate(`${pointer}/schema`, typed, `${method} ${template} query ${name}`));
      }
      for (const pointer of parameters) {
        const p = at(pointer) as Parameter;
        if (p.in === 'query' && p.required && !query.has(p.name)) {
          problems.push(`${method} ${template}: query parameter ${p.name} is required`);
        }
      }
      const bodyPointer = at(`${op}/requestBody`) ? follow(`${op}/requestBody`) : undefined;
      if (!bodyPointer) {
        if (body !== undefined) problems.push(`${method} ${template} takes no body`);
      } else if (body === undefined) {
        if ((at(bodyPointer) as { required?: boolean }).required) {
          problems.push(`${method} ${template}: a body is required`);
        }
      } else {
        problems.push(
          ...validate(`${bodyPointer}/content/application~1json/schema`, body, `${method} ${template} body`),
        );
      }
      return problems;
    },

    checkResponse(method, template, status, body) {
      const op = operation(method, template);
      if (!op) return [`${method} ${template} is not an operation of GitHub's API`];
      const listed = at(`${op}/responses/${status}`) ? follow(`${op}/responses/${status}`) : undefined;
      const where = `${method} ${template} ${status}`;
      if (!listed) {
        if (!ANY_OPERATION.has(status)) return [`${where} is not a status this operation answers`];
        return validate('/components/schemas/basic-error', body, `${where} body`);
      }
      const schema = `${listed}/content/application~1json/schema`;
      if (!at(schema)) {
        // Some error statuses are listed without a body; GitHub still sends its usual one.
        if (status >= 400 && body !== undefined)
          return validate('/components/schemas/basic-error', body, `${where} body`);
        return body === undefined ? [] : [`${where} has no body in the description`];
      }
      return validate(schema, body, `${where} body`);
    },

    example(name) {
      // Some schemas have only a list example (`simple-user-items`): its first item will do.
      const node =
        at(`/components/examples/${escape(name)}/value`) ??
        at(`/components/examples/${escape(name)}-items/value/0`);
      if (!node || typeof node !== 'object') throw new Error(`GitHub's description has no example ${name}`);
      return structuredClone(node) as Node;
    },
  };
}

/**
 * The formats GitHub's description uses (`uri`, `date-time`, `int64`; a test keeps this list
 * whole), as ajv-formats checks them: ajv has none of its own, and ajv-formats is not a
 * dependency of this project.
 */
export const FORMATS = {
  uri: { type: 'string', validate: isUri },
  'date-time': { type: 'string', validate: isDateTime },
  int64: { type: 'number', validate: (n: number) => Number.isInteger(n) && Number.isSafeInteger(n) },
} as const;

/**
 * An absolute URI (RFC 3986): a scheme, then only the characters a URI may hold, `%` only as an
 * escape, and `[` `]` only around an IP literal host. `new URL` alone is lenient (it takes spaces,
 * brackets in a path and `%` unescaped), so the characters are checked first.
 */
function isUri(text: string): boolean {
  const found = /^([a-z][a-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(text);
  if (!found) return false;
  const [, , authority = '', ...rest] = found;
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  const literal = /^\[[0-9a-f:.]+\](?::\d*)?$/i.test(host);
  const plain = /^(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*$/i;
  const userinfo = authority.slice(0, Math.max(0, authority.lastIndexOf('@')));
  if (!plain.test(userinfo) || !(literal || plain.test(host))) return false;
  if (
    !rest.every(
      (part) => part === undefined || /^(?:[a-z0-9\-._~!$&'()*+,;=:@/?#]|%[0-9a-f]{2})*$/i.test(part),
    )
  )
    return false;
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/** A date and time as RFC 3339 writes it (`2011-04-14T16:00:49Z`), of a day the calendar has. */
function isDateTime(text: string): boolean {
  const found =
    /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/.exec(text);
  if (!found) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHour = 0, offsetMinute = 0] =
    found.slice(1).map((n) => Number(n ?? 0));
  // Day 0 of the next month is the last day of this one.
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  // A leap second is written :60.
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= days &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 60 &&
    offsetHour <= 23 &&
    offsetMinute <= 59
  );
}

/**
 * OpenAPI 3.0 allows `nullable: true` beside `allOf`/`$ref` with no `type`, which ajv refuses:
 * such a schema becomes what it means, `anyOf: [the schema, null]`.
 */
function nullableWithoutType(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableWithoutType);
  if (!node || typeof node !== 'object') return node;
  const schema: Node = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, nullableWithoutType(value)] as const),
  );
  if (schema.nullable === true && schema.type === undefined) {
    const rest = { ...schema };
    delete rest.nullable;
    return { anyOf: [rest, { type: 'null' }] };
  }
  return schema;
}
