/** Starts a local HTTP server on a loopback address (port 0: a free one) and answers its base URL. */
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export async function listenLocally(server: Server, port = 0, host = '127.0.0.1'): Promise<string> {
  server.keepAliveTimeout = 5_000;
  server.on('timeout', closeIfStillIdle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

/**
 * The keep-alive timer of an idle connection (the only socket timeout these servers set): close it once a
 * whole turn of the event loop, poll phase included, has read nothing more on it. Node's default destroys
 * it at once, but a timer runs late when the event loop was stalled (a loaded machine, a long synchronous
 * step), and a client sharing that loop (the tests, the local site) may already have written its next
 * request on the connection it still thinks usable. That request is unread when the overdue timer runs,
 * and destroying a socket with unread data sends a reset: the client saw ECONNRESET. Read first, the
 * request resets the timer as any request does; a connection nothing arrived on is closed as before.
 */
function closeIfStillIdle(socket: Socket): void {
  const bytesRead = socket.bytesRead;
  // An immediate queued from a check phase runs in the next turn's, after that turn's poll phase.
  setImmediate(() =>
    setImmediate(() => {
      if (socket.bytesRead === bytesRead) socket.destroy();
    }),
  );
}

/** Closes the server, dropping idle keep-alive connections rather than waiting for them. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
