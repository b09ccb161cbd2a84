/**
 * The API's client: fetch only, no dependencies (Node 20+, Bun, browsers). Paging, safe retries
 * of writes (Idempotency-Key, If-Match), token renewal, following the change feed, files.
 */
import { Collection } from './collection.ts';
import { Files } from './files.ts';
import { follow, type FollowOptions, type Followed } from './follow.ts';
import { Transport, type ClientOptions } from './transport.ts';
import type { CollectionOf, Query, Schema } from './types.ts';

export * from './errors.ts';
export { etagOf, type SearchOptions, type WriteOptions } from './collection.ts';
export { Collection } from './collection.ts';
export { Search, type Position } from './search.ts';
export type { Change, Followed, FollowOptions } from './follow.ts';
export type { Download, FileRecord, UploadOptions } from './files.ts';
export { Files } from './files.ts';
export { verifyWebhook, WebhookVerificationError } from './webhooks.ts';
export type { ApiKeyLogin, ClientOptions, Tokens } from './transport.ts';
export type { AnyCollection, CollectionTypes, Json, Query, Schema, Shaped } from './types.ts';

export interface Client<S extends Schema> {
  /** A collection by name (its path from `paths`, else `maintenance/<name>`). */
  collection<N extends string>(name: N): Collection<CollectionOf<S, N>>;
  /** The attached files of one record of a collection. */
  files(name: (keyof S & string) | (string & {}), id: number): Files;
  /** Lists, then yields every change of the collection once, in seq order, for as long as iterated. */
  follow<N extends string>(
    name: N,
    query?: Query<CollectionOf<S, N>>,
    options?: FollowOptions,
  ): AsyncGenerator<Followed<CollectionOf<S, N>['record']>>;
  /** A request of your own through the client's tokens and retries (`path` under the base URL). */
  send: Transport['send'];
  /** The access token, renewed first when about to expire. */
  token(): Promise<string>;
}

export function createClient<S extends Schema = {}>(options: ClientOptions): Client<S> {
  const transport = new Transport(options);
  const pathOf = (name: string) => options.paths?.[name] ?? `maintenance/${name}`;
  const collection = <N extends string>(name: N) => new Collection<CollectionOf<S, N>>(transport, pathOf(name));
  return {
    collection,
    files: (name, id) => new Files(transport, `${pathOf(name)}/${id}/attached_files`),
    follow: (name, query, followOptions) => follow(transport, collection(name), name, query, followOptions),
    send: (method, path, init) => transport.send(method, path, init),
    token: () => transport.token(),
  };
}
