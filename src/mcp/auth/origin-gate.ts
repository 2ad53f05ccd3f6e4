import { AuthFailure } from './discovery';

/** How long the flow waits for the person to allow an origin before it gives up (as a step-up waits). */
export const ORIGIN_CONFIRM_MS = 5 * 60_000;

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * The origins the sign-in may contact. The receiver's own is the person's choice already; every other one
 * (the resource metadata's, the authorization server's, its endpoints') comes from metadata the receiver
 * controls, so the flow stops before its first request there until the person allows it, as a relay target is
 * confirmed. One question at a time: the flow is a sequence.
 */
export class OriginGate {
  private readonly allowed = new Set<string>();
  private asking: { origin: string; settle: (ok: boolean) => void } | undefined;

  constructor(
    receiverUrl: string,
    /** The question changed (an origin to confirm, or none any more): the view is drawn again. */
    private readonly onAsk: () => void,
  ) {
    const own = originOf(receiverUrl);
    if (own) this.allowed.add(own);
  }

  /** The origin waiting for the person's answer. */
  get pending(): string | undefined {
    return this.asking?.origin;
  }

  /** Origins confirmed earlier (a remembered sign-in, a same-tab round trip) need no second question. */
  allow(...urls: Array<string | undefined>): void {
    for (const url of urls) {
      const origin = url === undefined ? undefined : originOf(url);
      if (origin) this.allowed.add(origin);
    }
  }

  /** Resolves once `url`'s origin may be contacted; throws (an AuthFailure) when the person said no. */
  async pass(url: string): Promise<void> {
    const origin = originOf(url);
    if (origin === undefined || this.allowed.has(origin)) return;
    this.asking?.settle(false);
    const ok = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), ORIGIN_CONFIRM_MS);
      const settle = (answer: boolean) => {
        clearTimeout(timer);
        if (this.asking?.settle === settle) this.asking = undefined;
        resolve(answer);
        this.onAsk();
      };
      this.asking = { origin, settle };
      this.onAsk();
    });
    if (!ok)
      throw new AuthFailure(
        `Not contacted: ${origin}, named by the receiver's metadata, was not allowed`,
        'MCP authorization, Security Considerations',
      );
  }

  /** The person's answer for the origin asked about (any other origin is ignored). */
  answer(origin: string, allow: boolean): boolean {
    const asking = this.asking;
    if (!asking || asking.origin !== origin) return false;
    if (allow) this.allowed.add(origin);
    asking.settle(allow);
    return true;
  }

  /** Sign out: a question still open is answered no. */
  cancel(): void {
    this.asking?.settle(false);
  }
}
