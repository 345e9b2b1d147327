/**
 * The listen helper's keep-alive handling, with the race that reset the first request of a property test on
 * a loaded machine: a client in the same process writes its next request on an idle connection while the
 * event loop is stalled past the server's keep-alive timeout, so the overdue timer runs before the server
 * has read that request.
 */
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeServer, listenLocally } from '../../lib/local/listen.ts';

const server = createServer((request, response) => {
  request.resume();
  // The client's idle limit comes from this hint (undici's: the hint less 2 s); the server's own timer is
  // shortened below, so a short stall overruns it while the client still holds the connection as reusable.
  request.on('end', () =>
    response
      .writeHead(200, { 'Content-Type': 'text/plain', 'Keep-Alive': 'timeout=5' })
      .end(String(request.socket.remotePort)),
  );
});
const serverSockets: Socket[] = [];
server.on('connection', (socket) => serverSockets.push(socket));
let url: string;

beforeAll(async () => {
  url = await listenLocally(server);
  server.keepAliveTimeout = 200;
  server.keepAliveTimeoutBuffer = 0;
});
afterAll(() => closeServer(server));

/** Blocks the event loop, as a long synchronous step on a starved machine does. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

it('answers a request written on an idle connection while its keep-alive timer was overdue', async () => {
  await (await fetch(url, { method: 'POST', body: 'first' })).text();
  // One turn of the event loop: the client puts the connection back in its pool.
  await new Promise((resolve) => setImmediate(resolve));
  const idle = serverSockets.filter((socket) => !socket.destroyed).map((socket) => String(socket.remotePort));
  // Stalled and sending from an I/O callback (the poll phase), as the property test did after reading the
  // store: the client writes in this turn's check phase, before the next turn's timers run.
  await stat(fileURLToPath(import.meta.url));
  stall(400);
  const second = await fetch(url, { method: 'POST', body: 'second' });
  expect(second.status).toBe(200);
  // On a connection that was idle during the stall: the request went where the timer was overdue (the case under test).
  expect(idle).toContain(await second.text());
});

it('still closes a connection that stays idle past the keep-alive timeout', async () => {
  await (await fetch(url, { method: 'POST', body: 'idle after this' })).text();
  const socket = serverSockets.at(-1) as Socket;
  // The client would keep it for 3 s more (its hint); the server closes it on its own timer.
  await once(socket, 'close');
  expect(socket.destroyed).toBe(true);
});
