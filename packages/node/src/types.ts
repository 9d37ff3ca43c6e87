// Request and response types of the merchant API, read from the OpenAPI document's `paths` (generated/openapi.ts).
// Nothing here restates a field: when the document names its schemas or tightens a type, these follow.
import type { paths } from './generated/openapi.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete' | 'put';

/** The merchant API's paths (the document's admin and browser paths are not this library's). */
export type ApiPath = Extract<keyof paths, `/api/v1/${string}`>;

type Operation<P extends ApiPath, M extends HttpMethod> = NonNullable<paths[P][M]>;

/** The methods the document declares on a path. */
export type MethodOf<P extends ApiPath> = {
  [M in HttpMethod]: [NonNullable<paths[P][M]>] extends [never] ? never : M;
}[HttpMethod];

type JsonOf<T> = T extends { content: { 'application/json': infer J } } ? J : T extends { content?: { 'application/json': infer J } } ? J : never;

/** The JSON body an operation takes (`never` when it takes none). */
export type RequestBody<P extends ApiPath, M extends MethodOf<P>> = JsonOf<NonNullable<Operation<P, M>['requestBody']>>;

/** The query parameters an operation takes. */
export type QueryParams<P extends ApiPath, M extends MethodOf<P>> = Operation<P, M>['parameters'] extends { query?: infer Q }
  ? [NonNullable<Q>] extends [never] ? Record<string, never> : NonNullable<Q>
  : Record<string, never>;

/** The path parameters (`{id}`) of an operation. */
export type PathParams<P extends ApiPath, M extends MethodOf<P>> = Operation<P, M>['parameters'] extends { path: infer A } ? A : Record<string, never>;

type Responses<P extends ApiPath, M extends MethodOf<P>> = Operation<P, M>['responses'];
type Success = 200 | 201 | 202;

/** The JSON an operation answers on success (`unknown` where the document does not describe it). */
export type ResponseBody<P extends ApiPath, M extends MethodOf<P>> = {
  [C in keyof Responses<P, M> & Success]: [JsonOf<Responses<P, M>[C]>] extends [never] ? unknown : JsonOf<Responses<P, M>[C]>;
}[keyof Responses<P, M> & Success];

/** One item of a list operation's `data`. */
export type ListItem<P extends ApiPath, M extends MethodOf<P>> = ResponseBody<P, M> extends { data: (infer I)[] } ? I : never;
