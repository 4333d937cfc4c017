// Every workflow the README and docs/examples.md give, read by GitHub's own workflow parser
// (@actions/workflow-parser, the one behind GitHub's editor and language server): a workflow it
// refuses is one GitHub refuses as a whole, and a newcomer copies these as they are.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';

const ROOT = join(import.meta.dirname, '..');

/** Each whole workflow (a block with `jobs:`) of `file`, named by the heading it stands under. */
function workflows(file: string): [string, string][] {
  const markdown = readFileSync(join(ROOT, file), 'utf8');
  return [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].flatMap((m, i) => {
    const text = m[1] ?? '';
    if (!/^jobs:/m.test(text)) return [];
    const under = [...markdown.slice(0, m.index).matchAll(/^#+ (.*)$/gm)].pop()?.[1] ?? 'the top';
    return [[`${file} block ${i + 1} (${under})`, text]];
  });
}

const all = [...workflows('README.md'), ...workflows('docs/examples.md')];

describe("GitHub's workflow parser", () => {
  it('has the recipes to read', () => {
    expect(all.length).toBeGreaterThanOrEqual(10);
  });

  it.each(all)('accepts %s', async (_name, content) => {
    const parsed = parseWorkflow({ name: 'workflow.yml', content }, new NoOperationTraceWriter());
    const errors = parsed.context.errors.getErrors().map((e) => e.message);
    const converted = parsed.value ? await convertWorkflowTemplate(parsed.context, parsed.value) : undefined;
    const model = (converted?.errors ?? []).map((e) => e.Message);
    expect({ errors, model }).toEqual({ errors: [], model: [] });
    expect(converted?.jobs.length).toBeGreaterThan(0);
  });
});
