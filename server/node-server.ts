import { serve, type ServerType } from '@hono/node-server';
import type { Socket } from 'node:net';
import type { Service } from './service.ts';
import { PROBLEM_TYPE_PREFIX, PROBLEMS } from '../engine/errors.ts';

/** Node's own parser answers oversized heads before the app sees them; this gives them a problem+json body too. */
function rawProblem(code: 'headers-too-large' | 'invalid-request', detail: string): string {
  const { status, title } = PROBLEMS[code];
  const body = JSON.stringify({ type: PROBLEM_TYPE_PREFIX + code, title, status, detail });
  return (
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

export interface Listening {
  readonly server: ServerType;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish, closes the databases. */
  stop(): Promise<void>;
}

export async function listen(service: Service): Promise<Listening> {
  const { port, host } = service.config;
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: service.app.fetch, port, hostname: host }, () => resolve(s));
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
  return {
    server,
    port: typeof address === 'object' && address ? address.port : port,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}
