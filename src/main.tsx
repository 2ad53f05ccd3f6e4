import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import './index.css';
import { App } from './app/App';
import { wireEngine } from './app/wiring';
import { queryClient } from './state/query-client';
import { applyTheme } from './state/preferences';
import { initialSelection, useSelection } from './state/selection';
import { getEngine } from './engine/bridge';
import { connect, disconnect, initialServerUrl } from './connection/actions';
import { useConnection } from './state/connection';

applyTheme();
useSelection.setState({ selection: initialSelection() });
wireEngine(getEngine(), queryClient);
// Connecting is an action, not an effect: it runs once per page load, whatever React does with effects.
void connect(initialServerUrl());
// End the session on the receiver when the page goes away, so it does not keep our tasks for nothing.
window.addEventListener('pagehide', () => void disconnect());
// Back from the back/forward cache: that session was ended above, so open a new one.
window.addEventListener('pageshow', (event) => {
  if (event.persisted) void connect(useConnection.getState().url, useConnection.getState().headers);
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
