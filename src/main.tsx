import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import './index.css';
import { App } from './app/App';
import { queryClient } from './app/queryClient';
import { applyTheme } from './app/preferences';
import { initialSelection, useSelection } from './app/selection';
import { connect, initialServerUrl } from './connection/actions';

applyTheme();
useSelection.setState({ selection: initialSelection() });
// Connecting is an action, not an effect: it runs once per page load, whatever React does with effects.
void connect(initialServerUrl());

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
