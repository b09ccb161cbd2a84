import { serve, type ServerType } from '@hono/node-server';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { ConfigError, type Config } from './config.ts';
import type { Service } from './service.ts';
import { EngineError, PROBLEMS } from '../engine/errors.ts';
import { problemBody } from '../engine/http/problem.ts';
import { keepNodeBody } from '../adapters/files/node-bodies.ts';

/** Node's own parser answers oversized heads before the app sees them; this gives them the same problem+json body. */
function rawProblem(code: 'headers-too-large' | 'invalid-request', detail: string): string {
  const { status, title } = PROBLEMS[code];
  const body = JSON.stringify(problemBody(new EngineError(code, detail)));
  return (
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

export interface Listening {
  readonly server: ServerType;
  readonly port: number;
  /** `https` when TLS_CERT_FILE and TLS_KEY_FILE are set. */
  readonly scheme: 'http' | 'https';
  /** Stops accepting, lets in-flight requests finish, closes the databases. */
  stop(): Promise<void>;
}

/** How long in-flight requests may run after stop() before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

/** The certificate and key, read once at start; an unreadable file stops the start naming the variable. */
function tlsOptions(config: Pick<Config, 'tlsCertFile' | 'tlsKeyFile'>): { cert: Buffer; key: Buffer } | undefined {
  if (config.tlsCertFile === undefined || config.tlsKeyFile === undefined) return undefined;
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (e) {
      throw new ConfigError(`${name} cannot be read: ${(e as Error).message}`);
    }
  };
  return { cert: read('TLS_CERT_FILE', config.tlsCertFile), key: read('TLS_KEY_FILE', config.tlsKeyFile) };
}

export async function listen(service: Service): Promise<Listening> {
  const { port, host } = service.config;
  const tls = tlsOptions(service.config);
  // A multipart body is read as Node's stream, not as the web stream the Request would make of it.
  const fetch = (req: Request, env: unknown) => {
    keepNodeBody(req, env);
    return service.app.fetch(req, env);
  };
  const options = { fetch, port, hostname: host };
  const server = await new Promise<ServerType>((resolve, reject) => {
    let s: ServerType;
    try {
      s = tls
        ? serve({ ...options, createServer: createHttpsServer, serverOptions: tls }, () => resolve(s))
        : serve(options, () => resolve(s));
    } catch (e) {
      // A key that does not match the certificate, or is not PEM, fails here.
      return reject(new ConfigError(`TLS_CERT_FILE and TLS_KEY_FILE do not make a usable certificate: ${(e as Error).message}`));
    }
    s.once('error', reject);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    socket.end(
      tooLarge
        ? rawProblem('headers-too-large', 'The request line and headers must stay under 16 KiB.')
        : rawProblem('invalid-request', 'The request could not be parsed as HTTP.'),
    );
  });
  const address = server.address();
  let stopped: Promise<void> | undefined;
  return {
    server,
    port: typeof address === 'object' && address ? address.port : port,
    scheme: tls ? 'https' : 'http',
    stop: () => (stopped ??= stopServing(server as HttpServer, service)),
  };
}

/**
 * Event streams are ended at once (their clients reconnect to a server still serving, resuming
 * from Last-Event-ID), as they would otherwise hold their connections until the grace ran out.
 */
async function stopServing(server: HttpServer, service: Service): Promise<void> {
  const drained = drain(server);
  service.engine.streams.endAll();
  await drained;
  await service.close();
}

type HttpServer = ServerType & { closeIdleConnections(): void; closeAllConnections(): void };

/**
 * Stops accepting and waits for in-flight requests: idle keep-alive connections are closed at
 * once and again as requests finish (their sockets turn idle); after the grace period the rest
 * are cut.
 */
function drain(server: HttpServer): Promise<void> {
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}
