import { connect } from 'node:net';

/** Sends raw bytes over a plain socket and returns everything the server answers before closing. */
export function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (out += d));
    socket.on('end', () => resolve(out));
    socket.on('error', (e) => (out ? resolve(out) : reject(e)));
    socket.write(text);
  });
}
