/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Redline</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 24px; color: #1f2328; }
  h1 { font-size: 24px; margin: 0 0 8px; }
  .meta { color: #59636e; margin-bottom: 16px; }
  .badge { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 13px; font-weight: 600; color: #fff; background: #1f883d; }
  .badge.draft { background: #59636e; }
  .body { white-space: pre-wrap; border: 1px solid #d1d9e0; border-radius: 6px; padding: 16px; margin-bottom: 24px; }
  .diff { font: 12px/1.45 ui-monospace, monospace; border: 1px solid #d1d9e0; border-radius: 6px; overflow-x: auto; }
  .diff div { white-space: pre; padding: 0 12px; }
  .diff .add { background: #dafbe1; }
  .diff .del { background: #ffebe9; }
  .diff .file { background: #f6f8fa; font-weight: 600; padding-top: 6px; padding-bottom: 6px; border-top: 1px solid #d1d9e0; }
  .diff .hunk { color: #59636e; background: #ddf4ff; }
</style>
</head>
<body>
${body}
</body>
</html>`;
}
