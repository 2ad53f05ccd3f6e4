import { queryOptions } from '@tanstack/react-query';
import { queryKeys } from '../app/queryKeys';
import { getRuntime } from '../connection/runtime';

export const toolsQuery = (connectionId: number) =>
  queryOptions({
    queryKey: queryKeys.tools(connectionId),
    queryFn: () => {
      const runtime = getRuntime();
      if (!runtime || runtime.connectionId !== connectionId) throw new Error('Not connected');
      return runtime.api.listTools();
    },
    enabled: connectionId > 0,
  });
