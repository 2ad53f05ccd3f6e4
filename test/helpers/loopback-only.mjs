// Preloaded into receivers we did not write (server-everything listens on every interface): binds them to
// 127.0.0.1 on a port the OS picks, and prints that port so the test needs no guessing.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function patchedListen(...args) {
  const callback = typeof args.at(-1) === 'function' ? args.pop() : undefined;
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object') console.log(`LOOPBACK_PORT=${address.port}`);
  });
  return listen.call(this, 0, '127.0.0.1', callback);
};
