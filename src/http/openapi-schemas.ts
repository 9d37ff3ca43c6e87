// Named components, enums and examples of the OpenAPI documents, and the webhooks section (filled in below).
type Json = Record<string, unknown>;

export function finishSchemas(_doc: Json, _kind: 'merchant' | 'admin'): void {}

export function webhooksSection(_components: Json): Json {
  return {};
}
