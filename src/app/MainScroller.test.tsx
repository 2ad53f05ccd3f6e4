// @vitest-environment jsdom
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import { useSelection } from '../state/selection-store';
import { MainScroller } from './MainScroller';

const view = reactRoot();

describe('the main pane’s scroller', () => {
  it('opens another selection at its top: a task run from a form scrolled down shows its status', () => {
    act(() => useSelection.setState({ selection: { kind: 'tool', name: 'slow_job' } }));
    act(() => view.root.render(<MainScroller>a long run form</MainScroller>));
    const main = view.container.querySelector('main')!;
    main.scrollTop = 600;
    // Selecting what is already shown keeps the place.
    act(() => useSelection.getState().select({ kind: 'tool', name: 'slow_job' }));
    expect(main.scrollTop).toBe(600);
    // "Run as task" selects the new task.
    act(() => useSelection.getState().select({ kind: 'task', taskId: 't-1' }));
    expect(main.scrollTop).toBe(0);
  });
});
