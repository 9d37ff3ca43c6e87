// Time zones are IANA names (Pacific/Tahiti, Europe/Paris, UTC), checked against the runtime's own time zone
// database (Intl); the canonical spelling is what gets stored.

/** The canonical IANA name of `name`, or null when it is not a time zone this runtime knows. */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
