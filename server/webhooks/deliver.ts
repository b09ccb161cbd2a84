import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { publicAddresses } from './address.ts';
import { signedHeaders } from './signature.ts';

/** A 2xx within this long acknowledges a delivery (SPEC 9). */
export const DELIVERY_TIMEOUT_MS = 10_000;

export interface Delivery {
  readonly url: string;
  readonly secret: string;
  /** `evt_<seq>`. */
  readonly id: string;
  readonly body: string;
  readonly allowPrivate: boolean;
  readonly signal?: AbortSignal;
}

/**
 * The connection's own lookup checks what the host resolves to now, so the address connected to
 * is the one checked (a DNS answer cannot change between the check and the connection).
 */
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  publicAddresses(hostname).then(
    (addresses) => {
      if (options.all) (callback as (e: null, a: typeof addresses) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    },
    (e: NodeJS.ErrnoException) => callback(e, '', 0),
  );
};

/** POSTs one event; resolves with undefined on a 2xx, else with why it failed (never throws). */
export async function deliver(d: Delivery, nowS = Math.floor(Date.now() / 1000)): Promise<string | undefined> {
  const url = new URL(d.url);
  try {
    // An IP literal never reaches a lookup: it is checked here.
    if (!d.allowPrivate && isIP(url.hostname.replace(/^\[|\]$/g, ''))) await publicAddresses(url.hostname);
  } catch (e) {
    return (e as Error).message;
  }
  const signal = d.signal
    ? AbortSignal.any([d.signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)])
    : AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  const options: RequestOptions = {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(d.body),
      'user-agent': 'maintenance-records-webhooks',
      ...signedHeaders(d.secret, d.id, nowS, d.body),
    },
    signal,
    ...(d.allowPrivate ? {} : { lookup: checkedLookup }),
  };
  return new Promise((resolve) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      res.on('end', () => resolve(status >= 200 && status < 300 ? undefined : `HTTP ${status}`));
      res.on('error', (e) => resolve(e.message));
    });
    req.on('error', (e) =>
      resolve(signal.aborted && e.name === 'AbortError' ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : e.message),
    );
    req.end(d.body);
  });
}
