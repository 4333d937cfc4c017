import type { StoredPullRequest } from '../hosts/local.js';
import { escapeHtml, page } from './html.js';

function diffLine(line: string): string {
  const cls = line.startsWith('diff --git')
    ? 'file'
    : line.startsWith('@@')
      ? 'hunk'
      : line.startsWith('+') && !line.startsWith('+++')
        ? 'add'
        : line.startsWith('-') && !line.startsWith('---')
          ? 'del'
          : '';
  return `<div${cls ? ` class="${cls}"` : ''}>${escapeHtml(line) || ' '}</div>`;
}

/** A local pull request: title, state, description and the diff it had when last updated. */
export function pullRequestPage(pr: StoredPullRequest): string {
  const state = pr.draft
    ? '<span class="badge draft">Draft</span>'
    : `<span class="badge">${escapeHtml(pr.state)}</span>`;
  return page(
    `#${pr.number} ${pr.title}`,
    `<h1>${escapeHtml(pr.title)} <span class="meta">#${pr.number}</span></h1>
<div class="meta">${state} <code>${escapeHtml(pr.head)}</code> into <code>${escapeHtml(pr.base)}</code> · job <code>${escapeHtml(pr.jobId)}</code> · updated ${escapeHtml(pr.updatedAt)}</div>
<div class="body">${escapeHtml(pr.body)}</div>
<h2>Changes</h2>
<div class="diff">${pr.diff.split('\n').map(diffLine).join('')}</div>`,
  );
}
