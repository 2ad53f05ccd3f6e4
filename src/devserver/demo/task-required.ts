/**
 * 2025-11-25: "If execution.taskSupport is "required", … Servers MUST return a -32601 (Method not found) error
 * if a client does not attempt to do so." The SDK's McpServer (1.32) throws that very McpError inside its
 * tools/call handler, and the handler's own catch turns it into a CallToolResult with `isError` (only a
 * URL-elicitation error escapes it). This check stands in front of that handler, so the refusal reaches the
 * client as the JSON-RPC error it is.
 */
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  type ServerResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';

type RequestHandler = (request: unknown, extra: unknown) => Promise<ServerResult>;

/**
 * The two things of SDK 1.32's McpServer this reads that it does not export: the tools it registered (what its
 * own check reads) and the tools/call handler it installed (the Protocol's handler map).
 */
interface SdkInternals {
  _registeredTools?: Record<string, RegisteredTool>;
  server: { _requestHandlers?: Map<string, RequestHandler> };
}

/** Call after the tools are registered; throws at once if the SDK no longer has what this reads. */
export function refusePlainCallsOfTaskRequiredTools(mcp: McpServer): void {
  const sdk = mcp as unknown as SdkInternals;
  const sdkToolsCall = sdk.server._requestHandlers?.get('tools/call');
  if (!sdk._registeredTools || !sdkToolsCall) {
    throw new Error(
      'The SDK has changed: no tools/call handler or tool registry to check task-required calls in',
    );
  }
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, task } = request.params;
    const tools = sdk._registeredTools ?? {};
    const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (tool?.enabled && tool.execution?.taskSupport === 'required' && !task) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Tool ${name} runs only as a task (execution.taskSupport "required"): call it with params.task`,
      );
    }
    return sdkToolsCall(request, extra);
  });
}
