import express, { type Router } from 'express';
import { describe, expect, it } from 'vitest';
import { createDemoReceiver } from '../../src/devserver/demo/receiver';
import { createDemoReceiver2026 } from '../../src/devserver/demo-2026/receiver';
import { listenOnLoopback } from '../../src/devserver/http-server';
import { openSession } from '../../src/mcp/open-session';
import { PROTOCOL_2026 } from '../../src/mcp/protocol-rules';
import { stopAfterEach } from '../helpers/cleanups';

/** What reached the receiver, counted on its side before it answered. */
interface Arrival {
  method: string;
  versionHeader: string | undefined;
  envelope: boolean;
}

const later = stopAfterEach();

/**
 * A real receiver behind a door that refuses the first `refusals` server/discover requests with -32022 and
 * `data.supported: supported`, as a strict receiver that rejects the first version offered does. Everything
 * else goes on to the receiver.
 */
async function behindVersionDoor(
  receiver: { router: Router; close: () => Promise<void> },
  supported: unknown[],
  refusals: number,
  status = 400,
) {
  const arrivals: Arrival[] = [];
  let refused = 0;
  const app = express();
  app.use(
    '/mcp',
    express.json({ limit: '1mb' }),
    (req, res, next) => {
      const body = req.body as { id?: unknown; method?: unknown; params?: { _meta?: object } } | undefined;
      if (req.method === 'POST' && typeof body?.method === 'string') {
        arrivals.push({
          method: body.method,
          versionHeader: req.get('mcp-protocol-version'),
          envelope: Object.keys(body.params?._meta ?? {}).some((k) => k.endsWith('/protocolVersion')),
        });
        if (body.method === 'server/discover' && refused < refusals) {
          refused += 1;
          res.status(status).json({
            jsonrpc: '2.0',
            id: body.id ?? null,
            error: {
              code: -32022,
              message: 'Unsupported protocol version',
              data: { supported, requested: req.get('mcp-protocol-version') },
            },
          });
          return;
        }
      }
      next();
    },
    receiver.router,
  );
  const listening = await listenOnLoopback(app, 0);
  later(async () => {
    await receiver.close();
    await listening.close();
  });
  return { url: `${listening.url}/mcp`, arrivals };
}

const strict2026 = () => createDemoReceiver2026({ legacy: 'reject' });
const methodsOf = (arrivals: Arrival[]) => arrivals.map((a) => a.method);

describe('finding the generation: a version error to server/discover', () => {
  it('asks server/discover once more when the receiver lists 2026-07-28, and sends no initialize', async () => {
    const door = await behindVersionDoor(strict2026(), [PROTOCOL_2026], 1);
    const { session, detectedBy } = await openSession({ url: door.url });
    later(() => session.close());
    expect(detectedBy).toBe('discover');
    expect(session.era).toBe(PROTOCOL_2026);
    await session.request('tools/list');
    expect(methodsOf(door.arrivals)).toEqual(['server/discover', 'server/discover', 'tools/list']);
    // Every request the receiver saw is a 2026-07-28 one: the header and the envelope.
    for (const arrival of door.arrivals)
      expect(arrival).toMatchObject({ versionHeader: PROTOCOL_2026, envelope: true });
  });

  it('retries once only: a receiver that keeps refusing gets two server/discover and no initialize, and the person reads why', async () => {
    const door = await behindVersionDoor(strict2026(), [PROTOCOL_2026], 5);
    const error = await openSession({ url: door.url }).then(
      () => new Error('connected'),
      (e: unknown) => e as Error,
    );
    expect(methodsOf(door.arrivals)).toEqual(['server/discover', 'server/discover']);
    expect(error).toMatchObject({ code: -32022 });
    expect(error.message).toContain(`while listing ${PROTOCOL_2026}`);
  });

  it('a receiver listing only newer versions: no retry, no initialize, the versions named', async () => {
    const door = await behindVersionDoor(strict2026(), ['2027-03-01', '2025-11-25'], 5);
    const error = await openSession({ url: door.url }).then(
      () => new Error('connected'),
      (e: unknown) => e as Error,
    );
    expect(methodsOf(door.arrivals)).toEqual(['server/discover']);
    expect(error.message).toContain('2027-03-01, 2025-11-25');
    expect(error.message).toContain('no fallback');
  });

  it('forced to 2026-07-28: the same retry, and the same refusal said plainly', async () => {
    const door = await behindVersionDoor(strict2026(), [PROTOCOL_2026], 1);
    const { session, detectedBy } = await openSession({ url: door.url, era: PROTOCOL_2026 });
    later(() => session.close());
    expect(detectedBy).toBe('forced');
    expect(methodsOf(door.arrivals)).toEqual(['server/discover', 'server/discover']);
  });

  it('a 401 whose body is a JSON-RPC error is still a sign-in wall: no initialize', async () => {
    const door = await behindVersionDoor(strict2026(), [PROTOCOL_2026], 5, 401);
    const error = await openSession({ url: door.url }).then(
      () => new Error('connected'),
      (e: unknown) => e as Error,
    );
    expect(error).toMatchObject({ httpStatus: 401 });
    // Not a version answer to retry either, whatever its body says: a sign-in comes first.
    expect(methodsOf(door.arrivals)).toEqual(['server/discover']);
  });

  it('a 2025-11-25 receiver listing older versions only is spoken to with initialize', async () => {
    const door = await behindVersionDoor(createDemoReceiver(), ['2025-11-25', '2025-06-18'], 5);
    const { session, detectedBy } = await openSession({ url: door.url });
    later(() => session.close());
    expect(detectedBy).toBe('initialize');
    expect(session.era).toBe('2025-11-25');
    expect(methodsOf(door.arrivals).slice(0, 2)).toEqual(['server/discover', 'initialize']);
  });
});
