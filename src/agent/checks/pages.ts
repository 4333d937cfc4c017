import { compile } from '@mdx-js/mdx';
import type { Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { VFile } from 'vfile';
import YAML from 'yaml';
import type { CheckProblem } from '../../jobs/job-view.js';

export interface PageLink {
  url: string;
  line?: number;
}

export interface PageReport {
  problems: CheckProblem[];
  links: PageLink[];
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/;

function collectLinks(links: PageLink[]) {
  return () => (tree: Root) => {
    visit(tree, (node) => {
      const n = node as {
        type: string;
        url?: string;
        attributes?: { type: string; name?: string; value?: unknown }[];
        position?: { start: { line: number } };
      };
      const line = n.position?.start.line;
      if ((n.type === 'link' || n.type === 'image' || n.type === 'definition') && typeof n.url === 'string') {
        links.push({ url: n.url, line });
      }
      // Components such as <Card href="/quickstart"> and <img src="…"> link too.
      if ((n.type === 'mdxJsxFlowElement' || n.type === 'mdxJsxTextElement') && n.attributes) {
        for (const a of n.attributes) {
          if (
            a.type === 'mdxJsxAttribute' &&
            (a.name === 'href' || a.name === 'src') &&
            typeof a.value === 'string'
          ) {
            links.push({ url: a.value, line });
          }
        }
      }
    });
  };
}

/** Frontmatter is valid YAML (a mapping); MDX compiles; Markdown parses. Collects every link. */
export async function checkPage(file: string, content: string): Promise<PageReport> {
  const problems: CheckProblem[] = [];
  const links: PageLink[] = [];
  const fm = FRONTMATTER.exec(content);
  if (fm) {
    try {
      const data: unknown = YAML.parse(fm[1]!);
      if (data !== null && (typeof data !== 'object' || Array.isArray(data))) {
        problems.push({ file, line: 1, message: 'frontmatter must be a YAML mapping (key: value lines)' });
      }
    } catch (err) {
      const e = err as { message: string; linePos?: [{ line: number }] };
      problems.push({
        file,
        line: 1 + (e.linePos?.[0].line ?? 1),
        message: `frontmatter is not valid YAML: ${e.message.split('\n')[0]}`,
      });
    }
  }
  if (file.toLowerCase().endsWith('.mdx')) {
    try {
      await compile(new VFile({ path: file, value: content }), {
        remarkPlugins: [remarkFrontmatter, remarkGfm, collectLinks(links)],
      });
    } catch (err) {
      const e = err as {
        reason?: string;
        message: string;
        line?: number;
        place?: { line?: number; start?: { line: number } };
      };
      const line = e.line ?? e.place?.line ?? e.place?.start?.line;
      problems.push({
        file,
        ...(line ? { line } : {}),
        message: `MDX does not compile: ${e.reason ?? e.message}`,
      });
    }
  } else {
    const processor = unified().use(remarkParse).use(remarkFrontmatter).use(remarkGfm);
    const tree = processor.parse(content);
    collectLinks(links)()(tree as Root);
  }
  return { problems, links };
}
