import type { ToolInfo } from '../mcp';

/** Every word typed must appear in the tool's name, title or description, in any order and case. */
export function matchesTool(tool: Pick<ToolInfo, 'name' | 'title' | 'description'>, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = [tool.name, tool.title ?? '', tool.description ?? ''].join('\n').toLowerCase();
  return words.every((word) => haystack.includes(word));
}
