/** A 2025-11-25 initialize request as a page (or curl) sends it, from a client named `client`. */
export const initializeRequest = (client: string, extraParams: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: client, version: '1' },
    ...extraParams,
  },
});
