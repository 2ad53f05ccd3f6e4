import { Badge } from '../ui/Badge';
import type { ToolInfo } from '../mcp';

const look = {
  required: { tone: 'blue', text: 'task required', title: 'execution.taskSupport: required' },
  optional: { tone: 'violet', text: 'task optional', title: 'execution.taskSupport: optional' },
  forbidden: { tone: 'neutral', text: 'no task', title: 'execution.taskSupport: forbidden (or not given)' },
  receiver: {
    tone: 'violet',
    text: 'receiver decides',
    title:
      '2026-07-28 has no taskSupport: the receiver answers each call with a task or a result as it sees fit',
  },
} as const;

export function TaskSupportBadge({ support }: { support: ToolInfo['taskSupport'] }) {
  const { tone, text, title } = look[support];
  return (
    <Badge tone={tone} title={title}>
      {text}
    </Badge>
  );
}
