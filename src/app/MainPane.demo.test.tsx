// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { useConnection } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { useSelection } from '../state/selection-store';
import { reactRoot } from '../../test/helpers/react-root';
import { MainPane } from './MainPane';

const view = reactRoot();
const link = () => view.container.querySelector<HTMLAnchorElement>('[data-testid="demo-trace-welcome"]');
beforeEach(() => {
  useSelection.setState({ selection: { kind: 'none' } });
  useConnection.setState({ id: 1, url: '/demo/mcp', headers: {}, status: 'closed', server: undefined });
});

describe('the recorded demo, from the main pane', () => {
  it('is offered while nothing is selected, whatever the task list holds, and not during a replay', () => {
    act(() => view.root.render(<MainPane />));
    expect(link()?.textContent).toBe('Watch a recorded demo');
    expect(link()?.getAttribute('href')).toMatch(/^\/\?trace=%2Fdemo-trace\.json/);
    act(() => useSelection.getState().select({ kind: 'overview' }));
    expect(link()).toBeNull();
    act(() => {
      useSelection.getState().select({ kind: 'none' });
      useReplay.setState({ connectionId: 7 });
    });
    expect(link()).toBeNull();
    act(() => useReplay.setState({ connectionId: undefined }));
  });
});
