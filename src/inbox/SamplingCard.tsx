import { useState, type FormEvent } from 'react';
import { Button } from '../ui/Button';
import { inputClass } from '../ui/SchemaFields';
import { answerSampling } from './actions';
import type { InboxItem } from './inbox-store';
import { isObject } from '../mcp/json';

function contentText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((b) =>
      isObject(b)
        ? b.type === 'text' && typeof b.text === 'string'
          ? b.text
          : `[${String(b.type ?? 'content')}]`
        : '',
    )
    .join('\n');
}

/** A sampling/createMessage: the conversation and preferences, a reply a person writes, or a refusal. */
export function SamplingCard({ item }: { item: InboxItem }) {
  const messages = Array.isArray(item.params.messages) ? item.params.messages.filter(isObject) : [];
  const prefs = isObject(item.params.modelPreferences) ? item.params.modelPreferences : undefined;
  const hints =
    prefs && Array.isArray(prefs.hints)
      ? prefs.hints
          .filter(isObject)
          .map((h) => String(h.name ?? ''))
          .filter(Boolean)
      : [];
  const [text, setText] = useState('');
  const [model, setModel] = useState(hints[0] ?? 'human');
  const reply = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() !== '' && model.trim() !== '') answerSampling(item.key, { text, model: model.trim() });
  };
  return (
    <form onSubmit={reply} className="space-y-3" data-testid="sampling-form">
      {typeof item.params.systemPrompt === 'string' && (
        <p className="text-xs text-slate-500">
          system: <span className="whitespace-pre-wrap">{item.params.systemPrompt}</span>
        </p>
      )}
      <ol className="space-y-1">
        {messages.map((m, i) => (
          <li key={i} className="rounded bg-slate-50 px-2 py-1 text-sm dark:bg-slate-900">
            <span className="mr-2 text-xs font-medium text-slate-500">{String(m.role ?? '?')}</span>
            <span className="whitespace-pre-wrap">{contentText(m.content)}</span>
          </li>
        ))}
      </ol>
      {prefs && (
        <p className="text-xs text-slate-500">
          model preferences: {hints.length > 0 ? `hints ${hints.join(', ')}; ` : ''}
          {['costPriority', 'speedPriority', 'intelligencePriority']
            .filter((k) => typeof prefs[k] === 'number')
            .map((k) => `${k.replace('Priority', '')} ${String(prefs[k])}`)
            .join(', ')}
          {typeof item.params.maxTokens === 'number' && ` · maxTokens ${item.params.maxTokens}`}
        </p>
      )}
      <textarea
        rows={3}
        value={text}
        onChange={(e) => setText(e.target.value)}
        aria-label="Reply text"
        placeholder="The reply the receiver gets"
        className={inputClass}
      />
      <div className="flex items-center gap-2">
        <label className="text-xs text-slate-500" htmlFor={`model-${item.key}`}>
          model
        </label>
        <input
          id={`model-${item.key}`}
          value={model}
          onChange={(e) => setModel(e.target.value)}
          className={`${inputClass} w-48 font-mono`}
        />
        <Button type="submit" variant="primary" disabled={text.trim() === ''}>
          Reply
        </Button>
        <Button onClick={() => answerSampling(item.key, 'decline')}>Decline</Button>
      </div>
    </form>
  );
}
