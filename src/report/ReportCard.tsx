import { useState, type ReactNode } from 'react';
import {
  CircleCheck,
  CircleDashed,
  CircleX,
  ClipboardCheck,
  Download,
  ExternalLink,
  Info,
  TriangleAlert,
} from 'lucide-react';
import type { Era } from '../mcp';
import { RULE_BY_ID, strengthFor } from '../rules/catalogue';
import { CLIENT_RULE_BY_ID, clientStrength } from '../rules/client-catalogue';
import type { ClientCard, ClientRuleResult } from '../rules/client-judge';
import type { Offence, ReportCard as Card, RuleResult, Strength, Verdict } from '../rules/report-types';
import { Button, focusRing } from '../ui/Button';
import { downloadText } from '../ui/download';
import { CopyButton } from '../ui/CopyButton';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { ErrorNote } from '../ui/Panel';
import { useConnection } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { PASSIVE_OBSERVING, useObserve } from '../state/observe-store';
import { useSelection } from '../state/selection-store';
import { formatClock } from '../format/time';
import { byVerdict, reportMarkdown, VERDICT_ORDER } from '../rules/report-markdown';
import { reportFileName, reportJson } from '../rules/report-json';
import { useReportCard } from './hooks';
import { closeReport, useReport } from './report-store';
import { CheckConfirm } from './CheckConfirm';
import { CheckProgress } from './CheckProgress';

/** Why the check is off while a trace plays back. */
const REPLAY_NO_CHECK =
  'This is a replay of a recording: the check sends requests to a receiver, so it is off until you connect to one.';

const VERDICT_LOOK: Record<Verdict, { icon: ReactNode; text: string; label: string }> = {
  fail: {
    icon: <CircleX size={14} aria-hidden />,
    text: 'text-red-700 dark:text-red-400',
    label: 'fail',
  },
  warn: {
    icon: <TriangleAlert size={14} aria-hidden />,
    text: 'text-amber-700 dark:text-amber-400',
    label: 'warn',
  },
  info: { icon: <Info size={14} aria-hidden />, text: 'text-sky-700 dark:text-sky-400', label: 'info' },
  pass: {
    icon: <CircleCheck size={14} aria-hidden />,
    text: 'text-emerald-700 dark:text-emerald-400',
    label: 'pass',
  },
  unobserved: {
    icon: <CircleDashed size={14} aria-hidden />,
    text: 'text-slate-500 dark:text-slate-400',
    label: 'unobserved',
  },
};

const STRENGTH_LOOK: Record<Strength, string> = {
  MUST: 'ring-red-300 text-red-700 dark:ring-red-800 dark:text-red-300',
  SHOULD: 'ring-amber-300 text-amber-800 dark:ring-amber-800 dark:text-amber-300',
  MAY: 'ring-slate-300 text-slate-600 dark:ring-slate-700 dark:text-slate-300',
};

function VerdictMark({ verdict }: { verdict: Verdict }) {
  const look = VERDICT_LOOK[verdict];
  return (
    <span className={`inline-flex items-center gap-1 font-medium ${look.text}`} data-verdict={verdict}>
      {look.icon}
      {look.label}
    </span>
  );
}

/** A spec link, live only for http(s), opened without handing the new page a way back into this one. */
function SpecLink({ href, era }: { href: string | undefined; era: Era }) {
  let safe: string | undefined;
  try {
    const url = href ? new URL(href) : undefined;
    safe = url && (url.protocol === 'https:' || url.protocol === 'http:') ? url.href : undefined;
  } catch {
    safe = undefined;
  }
  if (!safe) return <span className="text-slate-500">—</span>;
  return (
    <a
      href={safe}
      target="_blank"
      rel="noopener noreferrer"
      className={`inline-flex items-center gap-0.5 rounded text-sky-700 underline dark:text-sky-400 ${focusRing}`}
      title={`The rule in the ${era} specification`}
    >
      spec <ExternalLink size={11} aria-hidden />
    </a>
  );
}

/** Opens the task at the offending observation; evidence from the wire alone is said as text. */
function OffenceLink({ offence }: { offence: Offence | undefined }) {
  if (!offence) return <span className="text-slate-500">—</span>;
  const when = offence.at !== undefined ? formatClock(offence.at, { millis: true }) : undefined;
  const taskId = offence.taskId;
  return (
    <span className="block max-w-80 [overflow-wrap:anywhere]">
      {taskId !== undefined ? (
        <button
          type="button"
          className={`rounded text-left text-sky-700 underline dark:text-sky-400 ${focusRing}`}
          title={`Open task ${taskId}${when ? ` at ${when}` : ''}`}
          data-testid="offence-link"
          onClick={() => {
            closeReport();
            useSelection.getState().select({ kind: 'task', taskId, at: offence.at });
          }}
        >
          {taskId.length > 16 ? `${taskId.slice(0, 12)}…` : taskId}
          {when && ` at ${when}`}
        </button>
      ) : (
        <span className="text-slate-600 dark:text-slate-300">
          {offence.trafficSeq !== undefined ? `message #${offence.trafficSeq}` : ''}
          {when && ` at ${when}`}
        </span>
      )}
      <span className="block text-slate-500">{offence.detail}</span>
    </span>
  );
}

function Summary({ card }: { card: Card }) {
  return (
    <ul className="flex flex-wrap gap-2" aria-label="Verdicts" data-testid="report-counts">
      {VERDICT_ORDER.map((verdict) => (
        <li
          key={verdict}
          className="rounded border border-slate-200 px-2 py-1 text-sm dark:border-slate-700"
          data-testid={`report-count-${verdict}`}
        >
          <VerdictMark verdict={verdict} />{' '}
          <span className="font-semibold tabular-nums">{card.counts[verdict] ?? 0}</span>
        </li>
      ))}
    </ul>
  );
}

/** Which side a rule judges: the receiver (the server running tasks) or the client (what it does with them). */
function SideTag({ side }: { side: 'receiver' | 'client' }) {
  return (
    <span className="ml-1 text-[10px] text-slate-500 uppercase" data-testid="rule-side">
      {side}
    </span>
  );
}

/** One rule's row, either side's: its verdict, title and side, strength, what it rests on, why, first offence, text. */
function RuleRowView({
  id,
  verdict,
  title,
  side,
  active,
  strength,
  observations,
  reason,
  firstOffence,
  source,
}: {
  id: string;
  verdict: Verdict;
  title: string;
  side: 'receiver' | 'client';
  active?: boolean;
  strength: Strength | undefined;
  observations: number;
  reason: string;
  firstOffence: Offence | undefined;
  source: ReactNode;
}) {
  return (
    <tr
      className="border-t border-slate-100 align-top dark:border-slate-800"
      data-testid="report-rule"
      data-rule={id}
      data-verdict={verdict}
    >
      <td className="py-1.5 pr-3">
        <VerdictMark verdict={verdict} />
      </td>
      <td className="py-1.5 pr-3">
        <span className="font-medium">{title}</span>
        <SideTag side={side} />
        {active && (
          <span className="ml-1 text-[10px] text-violet-700 uppercase dark:text-violet-400">active</span>
        )}
      </td>
      <td className="py-1.5 pr-3">
        <StrengthBadge strength={strength} />
      </td>
      <td className="py-1.5 pr-3 text-right tabular-nums" title="Observations the verdict rests on">
        {observations}
      </td>
      <td className="py-1.5 pr-3 [overflow-wrap:anywhere]">{reason}</td>
      <td className="py-1.5 pr-3">
        <OffenceLink offence={firstOffence} />
      </td>
      <td className="py-1.5">{source}</td>
    </tr>
  );
}

function RuleRow({ rule, era }: { rule: RuleResult; era: Era }) {
  const def = RULE_BY_ID.get(rule.id);
  return (
    <RuleRowView
      id={rule.id}
      verdict={rule.verdict}
      title={def?.title ?? rule.id}
      side="receiver"
      active={rule.source === 'active'}
      strength={def ? strengthFor(def, era) : undefined}
      observations={rule.observations}
      reason={rule.reason}
      firstOffence={rule.firstOffence}
      source={<SpecLink href={def?.spec[era]} era={era} />}
    />
  );
}

function StrengthBadge({ strength }: { strength: Strength | undefined }) {
  if (!strength) return null;
  return (
    <span
      className={`rounded px-1 py-0.5 font-mono text-[10px] ring-1 ring-inset ${STRENGTH_LOOK[strength]}`}
    >
      {strength}
    </span>
  );
}

function ClientRuleRow({ rule, card }: { rule: ClientRuleResult; card: ClientCard }) {
  const def = CLIENT_RULE_BY_ID.get(rule.id);
  const source = def?.source[card.era];
  return (
    <RuleRowView
      id={rule.id}
      verdict={rule.verdict}
      title={def?.title ?? rule.id}
      side="client"
      strength={def ? clientStrength(def, card.era, card.documentsFlavour) : undefined}
      observations={rule.observations}
      reason={rule.reason}
      firstOffence={rule.firstOffence}
      source={
        source && /^https?:/.test(source) ? (
          <SpecLink href={source} era={card.era} />
        ) : (
          <span className="text-slate-500">{source ?? '—'}</span>
        )
      }
    />
  );
}

/** While a client's session is observed: the client judged by the client rules, beside the receiver's card. */
function ClientSection() {
  const news = useObserve((s) => s.news);
  const card = news?.clientCard;
  if (!card) return null;
  const label = news.sessions.find((s) => s.key === news.selected)?.label ?? 'the client';
  const order = (r: ClientRuleResult) => VERDICT_ORDER.indexOf(r.verdict);
  return (
    <section className="space-y-2" aria-label="The client's rules" data-testid="client-card">
      <h3 className="text-sm font-semibold">
        The client: <span className="font-mono">{label}</span>{' '}
        <span className="font-normal text-slate-500">protocol {card.era}</span>
      </h3>
      <p className="text-xs text-slate-500">
        What this client did with its tasks, judged from the messages that passed the proxy: the task
        documents' and the spec's rules for a requestor.
      </p>
      <div className="overflow-x-auto">
        <table className="w-full text-left text-xs" data-testid="client-rules">
          <tbody>
            {[...card.rules]
              .sort((a, b) => order(a) - order(b))
              .map((rule) => (
                <ClientRuleRow key={rule.id} rule={rule} card={card} />
              ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function CardBody() {
  const card = useReportCard();
  const connected = useConnection((s) => s.status === 'connected');
  const checkError = useReport((s) => s.checkError);
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const observing = useObserve((s) => s.connectionId !== undefined);
  const [confirming, setConfirming] = useState(false);
  const era: Era = card.receiver.era ?? '2025-11-25';
  const running = card.active?.running ?? false;
  return (
    <div className="space-y-4" data-testid="report-body">
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1 text-sm">
        <span className="font-mono [overflow-wrap:anywhere]" data-testid="report-receiver">
          {card.receiver.url || '(no receiver)'}
        </span>
        {card.receiver.name && (
          <span className="text-slate-500">
            {card.receiver.name} {card.receiver.version}
          </span>
        )}
        <span className="text-slate-500">protocol {era}</span>
        <span className="text-slate-500">judged {formatClock(card.generatedAt)}</span>
      </div>
      <Summary card={card} />
      <p className="text-xs text-slate-500">
        Passive verdicts come from what Taskscope has observed of this receiver so far; the active check
        probes what watching cannot show. A MUST broken fails, a SHOULD broken warns, a MAY not used is
        information.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <Button
          variant="primary"
          disabled={!connected || running || replaying || observing}
          title={
            replaying
              ? REPLAY_NO_CHECK
              : observing
                ? PASSIVE_OBSERVING
                : connected
                  ? 'Probe the receiver (asks first: it creates tasks)'
                  : 'Connect to a receiver first'
          }
          onClick={() => setConfirming(true)}
          data-testid="check-receiver"
        >
          <ClipboardCheck size={14} /> Check this receiver
        </Button>
        <CopyButton
          text={() => reportMarkdown(card)}
          title="Copy the card as Markdown (for an issue tracker)"
          label="Copy Markdown"
          variant="outline"
          testId="copy-report-markdown"
        />
        <Button
          onClick={() => downloadText(reportFileName(card, 'md'), reportMarkdown(card), 'text/markdown')}
          data-testid="download-report-markdown"
        >
          <Download size={14} /> Markdown
        </Button>
        <Button
          onClick={() => downloadText(reportFileName(card, 'json'), reportJson(card), 'application/json')}
          data-testid="download-report-json"
        >
          <Download size={14} /> JSON
        </Button>
      </div>
      {replaying && (
        <p className="text-xs text-slate-500" data-testid="check-replay-note">
          {REPLAY_NO_CHECK}
        </p>
      )}
      {checkError && <ErrorNote title="The check did not start">{checkError}</ErrorNote>}
      {card.active && <CheckProgress check={card.active} />}
      <div className="overflow-x-auto">
        <table className="w-full text-left text-xs" data-testid="report-rules">
          <thead className="text-slate-500">
            <tr>
              <th className="pr-3 font-medium">Verdict</th>
              <th className="pr-3 font-medium">Rule</th>
              <th className="pr-3 font-medium">Strength</th>
              <th className="pr-3 text-right font-medium">Seen</th>
              <th className="pr-3 font-medium">Why</th>
              <th className="pr-3 font-medium">First offence</th>
              <th className="font-medium">Spec</th>
            </tr>
          </thead>
          <tbody>
            {byVerdict(card.rules).map((rule) => (
              <RuleRow key={rule.id} rule={rule} era={era} />
            ))}
          </tbody>
        </table>
      </div>
      <ClientSection />
      {confirming && <CheckConfirm url={card.receiver.url} onClose={() => setConfirming(false)} />}
    </div>
  );
}

/** The card's content, loaded with the card: the whole rule book is judged only once somebody opens it. */
export default function ReportCardBody() {
  return (
    <ErrorBoundary label="The report card" raw={() => useReport.getState().check}>
      <CardBody />
    </ErrorBoundary>
  );
}
