import { Badge } from '../ui/Badge';
import type { ToolInfo } from '../mcp';

const look = {
  required: { tone: 'blue', text: 'task required' },
  optional: { tone: 'violet', text: 'task optional' },
  forbidden: { tone: 'neutral', text: 'no task' },
} as const;

export function TaskSupportBadge({ support }: { support: ToolInfo['taskSupport'] }) {
  const { tone, text } = look[support];
  return (
    <Badge tone={tone} title={`execution.taskSupport: ${support}`}>
      {text}
    </Badge>
  );
}
