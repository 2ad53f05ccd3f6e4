import { queryOptions } from '@tanstack/react-query';
import { queryKeys } from '../tasks/core/query-keys';
import { getEngine } from '../engine/bridge';

export const toolsQuery = (connectionId: number) =>
  queryOptions({
    queryKey: queryKeys.tools(connectionId),
    queryFn: () => getEngine().request({ type: 'listTools' }),
  });
