// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import type { Command } from '../engine/messages';
import type { AuthView } from '../mcp';
import { useConnection } from '../state/connection-store';
import { AuthSection } from './AuthSection';

/**
 * The Sign-in card from the engine's view of the sign-in, and the commands its buttons send. The steps behind
 * each status are the engine's (test/integration/sign-in-steps.test.ts, auth-flow.test.ts).
 */
const sent = vi.hoisted(() => [] as unknown[]);
vi.mock('../bridge/engine-bridge', () => ({
  getEngine: () => ({
    request: (command: Command) => {
      sent.push(command);
      return Promise.resolve(undefined);
    },
  }),
}));

const OTHER = 'http://localhost:5173';
const view = reactRoot();
beforeEach(() => {
  sent.length = 0;
});

function show(auth: Partial<AuthView> & Pick<AuthView, 'status'>) {
  useConnection.setState({
    id: 1,
    url: 'http://127.0.0.1:5173/demo/mcp-auth',
    auth: { origins: [], steps: [], ...auth },
  });
  act(() => view.root.render(<AuthSection />));
}

const $ = (testId: string) => view.container.querySelector<HTMLElement>(`[data-testid="${testId}"]`);
const button = (name: string) =>
  [...view.container.querySelectorAll('button')].find((b) => b.textContent?.trim() === name)!;

describe('the Sign-in card', () => {
  it('asks about an origin the metadata named, and sends the answer', () => {
    show({ status: 'confirm-origin', confirmOrigin: OTHER });
    expect($('auth-status')?.textContent).toBe('allow an origin?');
    expect($('auth-origin')?.textContent).toBe(OTHER);
    act(() => $('auth-origin-refuse')!.click());
    act(() => $('auth-origin-allow')!.click());
    expect(sent).toEqual([
      { type: 'confirmOrigin', origin: OTHER, allow: false },
      { type: 'confirmOrigin', origin: OTHER, allow: true },
    ]);
  });

  it('a failed sign-in says why, and Try again starts it afresh', () => {
    const error = `Not contacted: ${OTHER}, named by the receiver's metadata, was not allowed`;
    show({ status: 'failed', error });
    expect($('auth-status')?.textContent).toBe('sign-in failed');
    expect($('auth-error')?.textContent).toContain(error);
    act(() => button('Try again').click());
    expect(sent).toEqual([{ type: 'signIn' }]);
  });

  it('more scope asked: names the scope the request lacks, not the ones granted, and offers to sign in again', () => {
    show({
      status: 'step-up-needed',
      scopes: ['tools:run', 'offline_access'],
      missingScopes: ['tools:flaky'],
      authorizationUrl: `${OTHER}/demo/auth/authorize?scope=tools%3Aflaky`,
    });
    expect($('auth-status')?.textContent).toBe('more scope asked');
    expect($('auth-card')?.textContent).toContain(
      'A request needs scope tools:flaky, beyond what was granted. It waits while you sign in again.',
    );
    expect($('auth-sign-in')?.textContent).toBe('Sign in again');
  });

  it('no registration offered: the client identity opens by itself, its client id focused', () => {
    show({ status: 'sign-in-needed' });
    const identity = $('auth-client-identity') as HTMLDetailsElement;
    expect(identity.open).toBe(false);
    show({
      status: 'failed',
      error: 'The authorization server offers no dynamic registration: enter a pre-registered client id',
      clientNeeded: true,
    });
    expect(identity.open).toBe(true);
    const focused = document.activeElement as HTMLInputElement | null;
    expect(focused?.closest('label')?.textContent).toContain('Pre-registered client id');
    expect(identity.contains(focused)).toBe(true);
  });

  it('another failure leaves the client identity folded', () => {
    show({ status: 'failed', error: 'The token endpoint refused the request (HTTP 400 invalid_grant)' });
    expect(($('auth-client-identity') as HTMLDetailsElement).open).toBe(false);
  });
});
