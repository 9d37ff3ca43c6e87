type Json = Record<string, unknown>;
export function webhooksSection(_components: Json): Json {
  return {};
}
