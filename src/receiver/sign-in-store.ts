import { create } from 'zustand';
import type { AuthClientChoice } from '../mcp';

/** The Sign-in section's state on this page: the client chosen per receiver, a blocked popup, "Remember". */
export interface SignInState {
  /** The client each receiver signs in as, when the person chose one: this tab's memory only (a secret may be in it). */
  choices: Record<string, AuthClientChoice>;
  /** window.open gave nothing (a blocker): the page offers the sign-in page as a link instead. */
  blockedUrl?: string;
  /** Bumped when "Remember sign-in" changes, so the box re-reads storage. */
  rememberTick: number;
}

export const useSignIn = create<SignInState>()(() => ({ choices: {}, rememberTick: 0 }));

export function authChoiceFor(url: string): AuthClientChoice | undefined {
  return useSignIn.getState().choices[url];
}

export function setAuthChoice(url: string, choice: AuthClientChoice | undefined): void {
  useSignIn.setState((s) => {
    const choices = Object.fromEntries(Object.entries(s.choices).filter(([key]) => key !== url));
    if (choice && (choice.clientId || choice.clientMetadataUrl)) choices[url] = choice;
    return { choices };
  });
}
