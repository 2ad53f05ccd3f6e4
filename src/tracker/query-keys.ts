/** Every react-query key Taskscope uses, scoped by connection so a reconnect never mixes two sessions' data. */
export const queryKeys = {
  all: ['taskscope'] as const,
  connection: (connectionId: number) => [...queryKeys.all, 'connection', connectionId] as const,
  tools: (connectionId: number) => [...queryKeys.connection(connectionId), 'tools'] as const,
  task: (connectionId: number, taskId: string) =>
    [...queryKeys.connection(connectionId), 'task', taskId] as const,
  taskResult: (connectionId: number, taskId: string) =>
    [...queryKeys.connection(connectionId), 'task', taskId, 'result'] as const,
};
