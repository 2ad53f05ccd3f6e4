import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import './index.css';
import { App } from './app/App';
import { wireEngine } from './app/wiring';
import { queryClient } from './state/query-client';
import { applyTheme } from './state/preferences-store';
import { initialSelection, useSelection } from './state/selection-store';
import { getEngine } from './bridge/engine-bridge';
import { connect, initialHeaders, initialServerUrl, pageHiding } from './receiver/actions';
import { initialReplaySpeed, initialTraceUrl, openTraceUrl } from './trace-files/open-trace';
import { syncAddress } from './app/sync-address';
import { initialObserveSource, observe } from './receiver/observe-actions';
import { handleOAuthCallback, isOAuthCallback, sameTabReturn } from './app/oauth-callback';
import { forgetSameTabTrip } from './receiver/auth-actions';
import type { AuthCallback, PendingSignIn } from './mcp';

// The redirect URI of a sign-in: it hands the code to the page that asked and closes; nothing else starts.
// Unless the sign-in went in this very tab: then the page comes back here, at its own address.
if (isOAuthCallback()) {
  const returning = sameTabReturn();
  if (returning) boot(returning);
  else handleOAuthCallback();
} else {
  forgetSameTabTrip();
  boot();
}

function boot(returning?: { trip: PendingSignIn; callback: AuthCallback }) {
  applyTheme();
  useSelection.setState({ selection: initialSelection() });
  wireEngine(getEngine());
  // Connecting is an action, not an effect: it runs once per page load, whatever React does with effects.
  // A reload takes up this tab's session again, so its tasks stay live and ?task= links keep working.
  // ?trace= replays a recording (from this origin only) instead: then no receiver is contacted at all.
  // ?observe= watches a client's session through Taskscope's proxy: nothing is sent in it either.
  const traceUrl = initialTraceUrl();
  const observed = initialObserveSource();
  const serverUrl = initialServerUrl();
  // The address follows what is on screen from here on (the receiver, the task open, the trace).
  syncAddress();
  if (traceUrl !== null) void openTraceUrl(traceUrl, initialReplaySpeed(), true);
  else if (observed !== null) void observe(observed);
  else {
    void connect(serverUrl, initialHeaders(serverUrl), { resume: true, keepSelection: true, returning });
  }
  // The session is not ended here (only Disconnect sends DELETE): a reload resumes it, and receivers expire
  // idle ones. What history has pending is written now.
  window.addEventListener('pagehide', pageHiding);

  const root = document.getElementById('root');
  if (!root) throw new Error('index.html has no #root element');
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </StrictMode>,
  );
}
