/// <reference lib="webworker" />
// The engine's Worker: the receiver session, the tracker and its timers run here, off the page's main thread,
// and a dedicated Worker's timers are not throttled in a background tab as a hidden page's are.
import { EngineHost } from './host';
import type { ToEngine } from './messages';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const host = new EngineHost((message) => scope.postMessage(message));
scope.onmessage = (event: MessageEvent<ToEngine>) => host.receive(event.data);
