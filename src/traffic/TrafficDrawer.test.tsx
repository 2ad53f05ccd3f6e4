// @vitest-environment jsdom
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import { useTrafficView } from './traffic-view-store';
import { TrafficDrawer } from './TrafficDrawer';

vi.mock('../bridge/engine-bridge', () => ({
  getEngine: () => ({ request: () => Promise.resolve(true) }),
}));

const view = reactRoot();
const drawer = () => view.container.querySelector<HTMLElement>('[data-testid="traffic-drawer"]')!;

describe('the traffic drawer', () => {
  it('opens tall enough for a message’s bodies (45 % of the window, at least 320 px), then as tall as it was made', () => {
    act(() => useTrafficView.setState({ open: true }));
    act(() => view.root.render(<TrafficDrawer />));
    expect(drawer().style.height).toBe('45vh');
    expect(drawer().style.minHeight).toBe('320px');
    act(() => useTrafficView.getState().setHeight(400));
    expect(drawer().style.height).toBe('400px');
    expect(drawer().style.minHeight).toBe('');
    expect(localStorage.getItem('taskscope.trafficHeight')).toBe('400');
  });
});
