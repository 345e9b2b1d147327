/**
 * The SSRF-safe fetch against loopback servers only. Addresses outside loopback appear solely as
 * answers of a stubbed resolver; spies on dns.lookup and Socket#connect prove that no refused address
 * is ever looked up or connected to.
 */
import dns from 'node:dns';
import net, { type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { getCACertificates, setDefaultCACertificates, type TLSSocket } from 'node:tls';
import { text } from 'node:stream/consumers';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { DomainError } from '../../functions/shared/errors.ts';
import { statusOf } from '../../functions/http/errors.ts';
import { safeFetch } from '../../functions/library/safe-fetch.ts';
import {
  pullPolicy,
  LOOPBACK_HINT,
  NOT_PUBLIC,
  resolveAndVet,
  UNREACHABLE,
  type PullPolicy,
  type ResolvedAddress,
} from '../../functions/library/pull-target.ts';

type Route = (request: IncomingMessage, response: ServerResponse) => void;
const routes = new Map<string, Route>();
const seen: { path: string; host: string | undefined }[] = [];
let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push({ path: request.url ?? '', host: request.headers.host });
    const route = routes.get(request.url ?? '');
    if (route) route(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

let systemLookup: MockInstance;
let connects: MockInstance;
beforeEach(() => {
  seen.length = 0;
  routes.clear();
  // The fetch must never fall back to the system resolver; if it did, this throws before any packet.
  systemLookup = vi.spyOn(dns, 'lookup').mockImplementation(() => {
    throw new Error('system DNS lookup attempted');
  });
  // Every connection goes through here; one to anything but loopback throws before a packet leaves.
  const realConnect = net.Socket.prototype.connect;
  connects = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (
    this: net.Socket,
    ...args: unknown[]
  ) {
    assertLoopbackTarget(args[0]);
    return (realConnect as (...rest: unknown[]) => net.Socket).apply(this, args);
  });
});

/** Where a Socket#connect call would go, resolved through its own (pinned) lookup when it has one. */
function assertLoopbackTarget(first: unknown): void {
  const options = (Array.isArray(first) ? first[0] : first) as
    { host?: string; lookup?: net.LookupFunction } | number | undefined;
  if (typeof options !== 'object' || options === null) throw new Error('test guard: unexpected Socket#connect form');
  let target = options.host ?? 'localhost';
  if (options.lookup && net.isIP(target) === 0) {
    options.lookup(target, { all: false }, (_error, address) => {
      target = typeof address === 'string' ? address : 'unresolved';
    });
  }
  if (!/^(127\.|::1$|::ffff:127\.|localhost$)/.test(target))
    throw new Error(`test guard: connection to ${target} refused (loopback only)`);
}
afterEach(() => vi.restoreAllMocks());

/** A resolver that answers from a table, counting its calls; unknown names fail like NXDOMAIN. */
function stubResolver(table: Record<string, string[] | (() => string[])>) {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const entry = table[hostname];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return (typeof entry === 'function' ? entry() : entry).map((address) => ({ address, family: net.isIP(address) }));
  };
  return { resolve, calls };
}

const policy = (overrides: Partial<PullPolicy> = {}) =>
  pullPolicy({
    allowLoopback: true,
    timeoutMs: 5_000,
    maxBytes: 1024,
    maxRedirects: 3,
    resolve: stubResolver({}).resolve,
    ...overrides,
  });

/** Connection attempts to anything but our loopback server (the probe counts every Socket#connect). */
const connectTargets = () => connects.mock.calls.map((call) => JSON.stringify(call[0]));

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('resolve and vet (stubbed resolver, nothing connects)', () => {
  const internal: [string, string][] = [
    ['169.254.169.254', 'link-local'],
    ['10.1.2.3', 'private'],
    ['172.16.0.9', 'private'],
    ['192.168.0.10', 'private'],
    ['fc00::5', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
  ];

  /** The one refusal of a host name, whatever its resolver answered: nothing of the answer shows. */
  const refusedName = (url: string, host: string) => `Pull of ${url} refused: the host ${host} ${NOT_PUBLIC}.`;

  it.each(internal)(
    'refuses a host that resolves to %s (%s), without naming the address or its kind',
    async (address, what) => {
      const resolver = stubResolver({ 'images.example.com': [address] });
      const url = 'http://images.example.com/photo.jpg';
      const error = await refusal(safeFetch(url, policy({ allowLoopback: false, resolve: resolver.resolve })));
      expect(statusOf(error)).toBe(422);
      expect(error.code).toBe('PullRefused');
      expect(error.message).toBe(refusedName(url, 'images.example.com'));
      expect(error.message).not.toContain(address);
      expect(error.message).not.toContain(what);
      expect(resolver.calls).toEqual(['images.example.com']);
      expect(connectTargets()).toEqual([]);
      expect(systemLookup).not.toHaveBeenCalled();
    },
  );

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://[fe80::1]/',
    'http://[::ffff:a00:1]/',
    'http://[fd00::1]:8080/x',
    'http://0x7f.1/',
    'http://2130706433/',
  ])('refuses the address literal in %s without resolving or connecting', async (url) => {
    const resolver = stubResolver({});
    const error = await refusal(safeFetch(url, policy({ allowLoopback: false, resolve: resolver.resolve })));
    expect(error.code).toBe('PullRefused');
    expect(resolver.calls).toEqual([]);
    expect(connectTargets()).toEqual([]);
  });

  it('refuses when any one of the resolved addresses is refused, naming neither', async () => {
    const resolver = stubResolver({ 'mixed.example.com': ['93.184.215.14', '10.0.0.7'] });
    const error = await refusal(
      resolveAndVet(new URL('https://mixed.example.com/a.png'), policy({ resolve: resolver.resolve })),
    );
    expect(error.code).toBe('PullRefused');
    expect(error.message).toBe(refusedName('https://mixed.example.com/a.png', 'mixed.example.com'));
  });

  it('answers every name that gives no public address alike: internal, missing, empty, failing lookups', async () => {
    const resolver = stubResolver({
      'localhost.example.com': ['127.0.0.1'],
      'metadata.example.com': ['169.254.169.254'],
      'intranet.example.com': ['10.0.0.7', '10.0.0.8'],
      'empty.example.com': [],
    });
    const failing = async () => {
      throw Object.assign(new Error('getaddrinfo EAI_AGAIN db.internal 10.0.0.2'), { code: 'EAI_AGAIN' });
    };
    const answers = [];
    for (const host of [
      'localhost.example.com',
      'metadata.example.com',
      'intranet.example.com',
      'empty.example.com',
      'nowhere.example.com',
    ])
      answers.push(
        await refusal(safeFetch(`http://${host}/x.png`, policy({ allowLoopback: false, resolve: resolver.resolve }))),
      );
    answers.push(await refusal(safeFetch('http://db.internal/x.png', policy({ resolve: failing }))));
    const neutral = answers.map((error) => ({
      code: error.code,
      status: statusOf(error),
      message: error.message.replace(/http:\/\/([^/]+)\/x\.png/, 'URL').replace(/the host \S+ /, 'the host HOST '),
    }));
    expect(new Set(neutral.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(neutral[0]).toEqual({
      code: 'PullRefused',
      status: 422,
      message: `Pull of URL refused: the host HOST ${NOT_PUBLIC}.`,
    });
    for (const error of answers)
      expect(error.message).not.toMatch(/\d+\.\d+\.\d+\.\d+|ENOTFOUND|EAI_AGAIN|loopback|private|link-local/);
    expect(connectTargets()).toEqual([]);
  });

  it('names PULL_ALLOW_LOOPBACK for localhost names that resolve to loopback alone, and for no other name', async () => {
    const resolver = stubResolver({
      localhost: ['127.0.0.1', '::1'],
      'app.localhost': ['127.0.0.1'],
      'odd.localhost': ['127.0.0.1', '10.0.0.1'],
      'localhost.example.com': ['127.0.0.1'],
    });
    const messages: Record<string, string> = {};
    for (const host of ['localhost', 'app.localhost', 'odd.localhost', 'localhost.example.com']) {
      const error = await refusal(
        safeFetch(`http://${host}/x.png`, policy({ allowLoopback: false, resolve: resolver.resolve })),
      );
      messages[host] = error.message;
    }
    expect(messages).toEqual({
      localhost: `Pull of http://localhost/x.png refused: the host localhost ${NOT_PUBLIC}${LOOPBACK_HINT}.`,
      'app.localhost': `Pull of http://app.localhost/x.png refused: the host app.localhost ${NOT_PUBLIC}${LOOPBACK_HINT}.`,
      'odd.localhost': `Pull of http://odd.localhost/x.png refused: the host odd.localhost ${NOT_PUBLIC}.`,
      'localhost.example.com': `Pull of http://localhost.example.com/x.png refused: the host localhost.example.com ${NOT_PUBLIC}.`,
    });
    expect(connectTargets()).toEqual([]);
  });

  it('pins the first vetted address and turns a mapped address into IPv4', async () => {
    const resolver = stubResolver({ 'cdn.example.com': ['::ffff:93.184.215.14', '2606:4700::6810:84e5'] });
    expect(await resolveAndVet(new URL('https://cdn.example.com/'), policy({ resolve: resolver.resolve }))).toEqual({
      address: '93.184.215.14',
      family: 4,
    });
  });

  it('refuses a host that does not resolve like a host that resolves to an internal address', async () => {
    const error = await refusal(safeFetch('http://nowhere.example.com/x.png', policy()));
    expect(error.code).toBe('PullRefused');
    expect(error.message).toBe(refusedName('http://nowhere.example.com/x.png', 'nowhere.example.com'));
  });

  it.each([
    'ftp://example.com/a.png',
    'file:///etc/passwd',
    'gopher://example.com/',
    'data:image/png;base64,AAAA',
    'javascript:alert(1)',
    'not a url',
    '/relative.png',
    'http://user:secret@example.com/a.png',
  ])('refuses %s before any lookup', async (url) => {
    const resolver = stubResolver({});
    const error = await refusal(safeFetch(url, policy({ resolve: resolver.resolve })));
    expect(error.code).toBe('PullRefused');
    expect(resolver.calls).toEqual([]);
    expect(connectTargets()).toEqual([]);
  });
});

describe('fetch over loopback', () => {
  const image = Buffer.from('GIF89a-not-really-but-bytes');
  const serveImage: Route = (_request, response) =>
    response.writeHead(200, { 'Content-Type': 'image/gif', 'Content-Length': image.length }).end(image);

  it('connects to the vetted address only, once, with the original Host header', async () => {
    routes.set('/photo.gif', serveImage);
    let answers = 0;
    // A rebinding resolver: the first answer is loopback (allowed here), any later one internal.
    const resolver = stubResolver({ 'photos.example.com': () => (answers++ === 0 ? ['127.0.0.1'] : ['10.0.0.1']) });
    const fetched = await safeFetch(
      `http://photos.example.com:${port}/photo.gif`,
      policy({ resolve: resolver.resolve }),
    );
    expect(await text(fetched.body)).toBe(image.toString());
    expect(fetched).toMatchObject({
      contentType: 'image/gif',
      contentLength: image.length,
      url: `http://photos.example.com:${port}/photo.gif`,
    });
    expect(resolver.calls).toEqual(['photos.example.com']);
    expect(seen).toEqual([{ path: '/photo.gif', host: `photos.example.com:${port}` }]);
    expect(systemLookup).not.toHaveBeenCalled();
  });

  it('refuses loopback unless allowed, without sending a request', async () => {
    routes.set('/photo.gif', serveImage);
    for (const host of [`127.0.0.1:${port}`, `[::1]:${port}`]) {
      const error = await refusal(safeFetch(`http://${host}/photo.gif`, policy({ allowLoopback: false })));
      expect(error.code).toBe('PullRefused');
      expect(error.message).toMatch(/is a loopback address \(.*\); PULL_ALLOW_LOOPBACK=true allows loopback/);
    }
    expect(seen).toEqual([]);
    expect(connectTargets()).toEqual([]);
  });

  it('refuses a redirect into a private address, vetting the new host', async () => {
    routes.set('/start', (_request, response) =>
      response.writeHead(302, { Location: 'http://intranet.example.com/secret.png' }).end(),
    );
    const resolver = stubResolver({ 'intranet.example.com': ['192.168.1.20'] });
    const url = `http://127.0.0.1:${port}/start`;
    const error = await refusal(safeFetch(url, policy({ resolve: resolver.resolve })));
    expect(error.code).toBe('PullRefused');
    expect(error.message).toContain(url);
    expect(error.message).toContain(`the host intranet.example.com ${NOT_PUBLIC}`);
    expect(error.message).not.toContain('192.168');
    expect(resolver.calls).toEqual(['intranet.example.com']);
    expect(seen.map((request) => request.path)).toEqual(['/start']);
    expect(connectTargets()).toHaveLength(1);
  });

  it('refuses a redirect to the metadata address and to a non-http scheme', async () => {
    routes.set('/metadata', (_request, response) =>
      response.writeHead(301, { Location: 'http://169.254.169.254/latest/meta-data/iam/' }).end(),
    );
    routes.set('/file', (_request, response) => response.writeHead(307, { Location: 'file:///etc/passwd' }).end());
    expect((await refusal(safeFetch(`http://127.0.0.1:${port}/metadata`, policy()))).message).toContain(
      '169.254.169.254 is a link-local address',
    );
    expect((await refusal(safeFetch(`http://127.0.0.1:${port}/file`, policy()))).message).toContain('scheme file');
    expect(connectTargets()).toHaveLength(2);
  });

  it('follows up to the redirect limit, relative Locations included, and refuses one more', async () => {
    routes.set('/r3', (_request, response) => response.writeHead(301, { Location: '/r2' }).end());
    routes.set('/r2', (_request, response) =>
      response.writeHead(302, { Location: `http://127.0.0.1:${port}/r1` }).end(),
    );
    routes.set('/r1', (_request, response) => response.writeHead(308, { Location: 'photo.gif' }).end());
    routes.set('/r4', (_request, response) => response.writeHead(303, { Location: '/r3' }).end());
    routes.set('/photo.gif', serveImage);
    const fetched = await safeFetch(`http://127.0.0.1:${port}/r3`, policy());
    expect(await text(fetched.body)).toBe(image.toString());
    expect(fetched.url).toBe(`http://127.0.0.1:${port}/photo.gif`);

    seen.length = 0;
    const error = await refusal(safeFetch(`http://127.0.0.1:${port}/r4`, policy()));
    expect(error.code).toBe('PullRefused');
    expect(error.message).toContain('more than 3 redirects');
    expect(seen.map((request) => request.path)).toEqual(['/r4', '/r3', '/r2', '/r1']);
  });

  it('names the status of a non-200 answer', async () => {
    const error = await refusal(safeFetch(`http://127.0.0.1:${port}/missing.png`, policy()));
    expect(statusOf(error)).toBe(422);
    expect(error.code).toBe('PullFailed');
    expect(error.message).toContain('answered 404');
  });

  it('refuses a declared Content-Length over the cap before reading the body', async () => {
    routes.set('/big', (_request, response) =>
      response.writeHead(200, { 'Content-Length': 5000 }).end(Buffer.alloc(5000)),
    );
    const error = await refusal(safeFetch(`http://127.0.0.1:${port}/big`, policy()));
    expect(statusOf(error)).toBe(413);
    expect(error.message).toContain('larger than 1024 bytes');
  });

  it('stops a streamed body at the cap', async () => {
    routes.set('/chunked', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'image/png' });
      for (let index = 0; index < 10; index++) response.write(Buffer.alloc(200));
      response.end();
    });
    const fetched = await safeFetch(`http://127.0.0.1:${port}/chunked`, policy());
    const error = await refusal(text(fetched.body));
    expect(statusOf(error)).toBe(413);
  });

  it('fails a body cut short', async () => {
    routes.set('/cut', (_request, response) => {
      response.writeHead(200, { 'Content-Length': 1000 });
      response.write(Buffer.alloc(100), () => response.socket?.destroy());
    });
    const fetched = await safeFetch(`http://127.0.0.1:${port}/cut`, policy());
    const error = await refusal(text(fetched.body));
    expect(error.code).toBe('PullFailed');
  });

  it('gives up at the deadline, waiting for headers or for the body', async () => {
    routes.set('/silent', () => undefined);
    routes.set('/stall', (_request, response) => {
      response.writeHead(200, { 'Content-Length': 1000 });
      response.write(Buffer.alloc(10));
    });
    const silent = await refusal(safeFetch(`http://127.0.0.1:${port}/silent`, policy({ timeoutMs: 100 })));
    expect(silent.code).toBe('PullFailed');
    // No answer at all reads like no connection at all (below); a body that stalls names the deadline.
    expect(silent.message).toBe(`Pull of http://127.0.0.1:${port}/silent failed: ${UNREACHABLE}.`);

    const fetched = await safeFetch(`http://127.0.0.1:${port}/stall`, policy({ timeoutMs: 100 }));
    const stalled = await refusal(text(fetched.body));
    expect(stalled.message).toContain('within 100 ms');
  });
});

/**
 * No port-scanning oracle: a refused port, a closed port, a reset, a server that speaks no HTTP and one
 * that never answers all read alike. Refused ports are proven against public addresses that exist only
 * in the stubbed resolver (nothing connects); the other failures against loopback servers.
 */
describe('one answer for every connection that fails', () => {
  const sameFailure = (error: DomainError, url: string) => ({
    status: statusOf(error),
    code: error.code,
    message: error.message.replace(url, '<url>'),
  });
  const servers: net.Server[] = [];
  const loopbackServer = async (onConnection: (socket: net.Socket) => void): Promise<number> => {
    const tcp = net.createServer(onConnection);
    servers.push(tcp);
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    return (tcp.address() as AddressInfo).port;
  };
  /** Ports of loopback servers that fail in each way (listening happens before the DNS spy is set). */
  const ports = { closed: 0, reset: 0, notHttp: 0, silent: 0 };
  beforeAll(async () => {
    ports.closed = await loopbackServer(() => undefined);
    await new Promise((resolve) => servers.pop()?.close(resolve));
    ports.reset = await loopbackServer((socket) => socket.resetAndDestroy());
    ports.notHttp = await loopbackServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    ports.silent = await loopbackServer(() => undefined);
  });
  afterAll(() => servers.forEach((tcp) => tcp.close()));

  const publicHost = () =>
    stubResolver({ 'images.example.com': ['93.184.215.14'], 'v6.example.com': ['2606:4700::6810:84e5'] });

  it('reads the port from PULL_ALLOWED_PORTS: 80 and 443 by default, a list, or any', () => {
    expect(pullPolicy().allowedPorts).toEqual([80, 443]);
    process.env.PULL_ALLOWED_PORTS = '443, 8443';
    expect(pullPolicy().allowedPorts).toEqual([443, 8443]);
    process.env.PULL_ALLOWED_PORTS = 'any';
    expect(pullPolicy().allowedPorts).toBe('any');
    process.env.PULL_ALLOWED_PORTS = '80,70000';
    expect(() => pullPolicy()).toThrow(/PULL_ALLOWED_PORTS/);
    delete process.env.PULL_ALLOWED_PORTS;
  });

  it('refuses any other port of a public address before connecting, as a failed connection', async () => {
    const refusedUrl = `http://127.0.0.1:${ports.closed}/a.png`;
    const expected = sameFailure(await refusal(safeFetch(refusedUrl, policy())), refusedUrl);
    expect(expected.code).toBe('PullFailed');
    connects.mockClear();
    for (const url of [
      'http://images.example.com:8080/a.png',
      'https://images.example.com:22/a.png',
      'http://v6.example.com:6379/',
      'http://93.184.215.14:25/',
    ]) {
      const error = await refusal(safeFetch(url, policy({ allowLoopback: false, resolve: publicHost().resolve })));
      expect(sameFailure(error, url), url).toEqual(expected);
    }
    expect(connectTargets()).toEqual([]);
  });

  it('refuses a redirect to another port of a public address the same way', async () => {
    routes.set('/hop', (_request, response) =>
      response.writeHead(302, { Location: 'http://images.example.com:8080/secret' }).end(),
    );
    const url = `http://127.0.0.1:${port}/hop`;
    const error = await refusal(safeFetch(url, policy({ resolve: publicHost().resolve })));
    expect(error.code).toBe('PullFailed');
    expect(error.message).not.toContain('8080');
    expect(connectTargets()).toHaveLength(1);
  });

  it('answers a closed port, a reset, a server that speaks no HTTP, a silent one and a refused port alike', async () => {
    const urls = [
      `http://127.0.0.1:${ports.closed}/a.png`,
      `http://127.0.0.1:${ports.reset}/a.png`,
      `http://127.0.0.1:${ports.notHttp}/a.png`,
      `http://127.0.0.1:${ports.silent}/a.png`,
      `http://images.example.com:8080/a.png`,
    ];
    const failures = [];
    for (const url of urls)
      failures.push(
        sameFailure(await refusal(safeFetch(url, policy({ timeoutMs: 200, resolve: publicHost().resolve }))), url),
      );
    expect(new Set(failures.map((failure) => JSON.stringify(failure))).size).toBe(1);
    expect(failures[0]?.code).toBe('PullFailed');
  });
});

/**
 * test/fixtures/tls: a test CA (its key was thrown away) and a certificate it signed for
 * images.example.test only, valid until 2126. The stubbed resolver sends that name to 127.0.0.1.
 */
describe('fetch over HTTPS (loopback server with a test CA)', () => {
  const fixture = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8');
  const image = Buffer.from('GIF89a-over-tls');
  const serverNames: (string | false | null)[] = [];
  let tlsServer: ReturnType<typeof createTlsServer>;
  let tlsPort: number;
  const systemCAs = getCACertificates('default');

  beforeAll(async () => {
    tlsServer = createTlsServer({ key: fixture('images.key'), cert: fixture('images.pem') }, (request, response) => {
      serverNames.push((request.socket as TLSSocket).servername);
      response.writeHead(200, { 'Content-Type': 'image/gif', 'Content-Length': image.length }).end(image);
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    tlsPort = (tlsServer.address() as AddressInfo).port;
  });
  afterAll(() => {
    setDefaultCACertificates(systemCAs);
    tlsServer.closeAllConnections();
    tlsServer.close();
  });
  beforeEach(() => {
    serverNames.length = 0;
  });

  const resolver = () =>
    stubResolver({ 'images.example.test': ['127.0.0.1'], 'elsewhere.example.test': ['127.0.0.1'] });

  it('verifies the certificate against the URL host name, sent as the TLS server name', async () => {
    setDefaultCACertificates([...systemCAs, fixture('ca.pem')]);
    const stub = resolver();
    const fetched = await safeFetch(
      `https://images.example.test:${tlsPort}/photo.gif`,
      policy({ resolve: stub.resolve }),
    );
    expect(await text(fetched.body)).toBe(image.toString());
    expect(serverNames).toEqual(['images.example.test']);
    expect(stub.calls).toEqual(['images.example.test']);
    expect(systemLookup).not.toHaveBeenCalled();
  });

  it('fails a certificate for another name, pinned address or not', async () => {
    setDefaultCACertificates([...systemCAs, fixture('ca.pem')]);
    const url = `https://elsewhere.example.test:${tlsPort}/photo.gif`;
    const error = await refusal(safeFetch(url, policy({ resolve: resolver().resolve })));
    expect(statusOf(error)).toBe(422);
    expect(error.code).toBe('PullFailed');
    expect(error.message).toContain(url);
    expect(error.message).not.toContain('ERR_TLS');
    expect(error.message).toBe(`Pull of ${url} failed: ${UNREACHABLE}.`);
  });

  it('fails a certificate from an untrusted issuer', async () => {
    setDefaultCACertificates(systemCAs);
    const url = `https://images.example.test:${tlsPort}/photo.gif`;
    const error = await refusal(safeFetch(url, policy({ resolve: resolver().resolve })));
    expect(error.code).toBe('PullFailed');
    expect(error.message).toBe(`Pull of ${url} failed: ${UNREACHABLE}.`);
    expect(serverNames).toEqual([]);
  });
});
