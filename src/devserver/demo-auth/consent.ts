const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/**
 * The demo authorization server's one-click consent: which client, which scopes, Allow or Deny. The client
 * name comes from a registration anyone could send, so every value is escaped.
 */
export function consentPage(view: {
  id: string;
  clientName: string;
  scopes: string[];
  action: string;
}): string {
  const scopes = view.scopes.map((s) => `<li><code>${escape(s)}</code></li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in to the Taskscope demo</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}</style></head>
<body><h1>Taskscope demo authorization server</h1>
<p><strong>${escape(view.clientName.slice(0, 200))}</strong> asks to use the demo receiver with:</p>
<ul>${scopes}</ul>
<form method="post" action="${escape(view.action)}">
<input type="hidden" name="id" value="${escape(view.id)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>`;
}
