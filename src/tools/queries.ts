import { queryOptions } from '@tanstack/react-query';
import { queryKeys } from '../tracker/queries';
import { getEngine } from '../bridge/engine-bridge';

export const toolsQuery = (connectionId: number) =>
  queryOptions({
    queryKey: queryKeys.tools(connectionId),
    queryFn: () => getEngine().request({ type: 'listTools' }),
  });
